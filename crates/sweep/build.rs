//! Stamp the version with the commit it was built from, as the root crate's build.rs
//! does: a part or report names what it came from, and the wheel's parts merge with the
//! command line's only where both say the same.
use std::path::Path;
use std::process::Command;

fn main() {
    stamp_version();
}

/// `WAVEBENCH_VERSION`: "0.1.0 (commit 1a2b3c4d5e6f)", or the bare version outside a git
/// checkout (a source tarball), so that `wavebench --version` names what a report came from.
fn stamp_version() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let stamped = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(commit) => format!("{version} (commit {commit})"),
        None => version,
    };
    println!("cargo:rustc-env=WAVEBENCH_VERSION={stamped}");
    // Rerun when HEAD moves. Only existing paths are named: a missing one would make cargo
    // rerun this script on every build.
    println!("cargo:rerun-if-changed=build.rs");
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let dir = Path::new(&dir);
        let head = dir.join("HEAD");
        let mut watch = vec![head.clone(), dir.join("packed-refs")];
        if let Ok(text) = std::fs::read_to_string(&head) {
            if let Some(r) = text.trim().strip_prefix("ref: ") {
                watch.push(dir.join(r));
            }
        }
        for p in watch.iter().filter(|p| p.exists()) {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
}
