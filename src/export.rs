//! Writing results: atomically (temporary file in the same folder, then rename), so a
//! failed run never leaves a half-written file; `-` means standard output.

use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Write what `fill` produces to `path` atomically, or to stdout when `path` is `-`.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), String> {
    if path.as_os_str() == "-" {
        let stdout = io::stdout();
        let mut w = BufWriter::new(stdout.lock());
        return fill(&mut w)
            .and_then(|_| w.flush())
            .map_err(|e| format!("cannot write to standard output: {e}"));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{}: not a file path", path.display()))?;
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| -> io::Result<()> {
        let mut w = BufWriter::new(std::fs::File::create(&tmp)?);
        fill(&mut w)?;
        w.flush()?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: cannot write: {e}", path.display())
    })
}
