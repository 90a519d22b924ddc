//! `wavebench`: the app with no arguments, a subcommand otherwise.

use clap::FromArgMatches;
use wavebench::cli::{self, Cli, Command};
use wavebench::error::Error;

fn main() {
    let args = match cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(a) => a,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            eprintln!("wavebench: {}", one_line(&e.render().to_string()));
            std::process::exit(2);
        }
    };
    // The window's failure is ours (exit 1); the launch's options are checked before it
    // opens (exit 2).
    let app = |launch| wavebench::app::run(launch).map_err(|e| Error::internal(e.to_string()));
    let (result, command) = match args.command {
        None => (app(Default::default()), false),
        Some(Command::Gui {
            file,
            screenshots,
            config,
        }) => (
            wavebench::app::Launch::of(file, config, screenshots).and_then(app),
            false,
        ),
        Some(cmd) => {
            // Ctrl-C or SIGTERM while an output is being written: remove the temporary
            // file, then stop as an interrupted program does (exit 130).
            let _ = ctrlc::set_handler(|| {
                wavebench::export::remove_temporaries();
                eprintln!("wavebench: interrupted; no output written");
                std::process::exit(130);
            });
            (cli::run(cmd), true)
        }
    };
    let code = match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("wavebench: {}", cli::message(&e));
            e.exit_code()
        }
    };
    if command {
        quick_exit(code)
    }
    std::process::exit(code);
}

/// End a command without the C++ static destructors: every output is written (files are
/// synced and renamed by `export`) and standard output is flushed here, and libtorch's
/// destructors only free its operator registry, which the OS does at once (BENCHMARKS.md,
/// "Measurements behind the code").
fn quick_exit(mut code: i32) -> ! {
    use std::io::Write;
    match std::io::stdout().flush() {
        // The reader has gone (`| head`): not a failure of ours.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("wavebench: cannot write to standard output: {e}");
            code = code.max(1);
        }
        _ => {}
    }
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` only ends the process; nothing of this program runs after it.
    unsafe { libc::_exit(code) }
}

/// clap's error (what, possible values, a suggestion, usage) as one line; `--help` has
/// the usage.
fn one_line(rendered: &str) -> String {
    rendered
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
        })
        .map(|l| {
            l.strip_prefix("error: ")
                .or_else(|| l.strip_prefix("tip: "))
                .unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join("; ")
}
