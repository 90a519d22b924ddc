//! `wavebench`: the app with no arguments, a subcommand otherwise.

use clap::Parser;
use wavebench::cli::{self, Cli, Command};

fn main() {
    let args = Cli::parse();
    let result = match args.command {
        None => wavebench::app::run(None),
        Some(Command::Gui { file }) => wavebench::app::run(file),
        Some(cmd) => cli::run(cmd),
    };
    if let Err(f) = result {
        eprintln!("wavebench: {}", f.message());
        std::process::exit(f.exit_code());
    }
}
