//! `wavebench wavelets`: the catalogue.

use crate::error::{Error, Result};
use std::io::Write;
use wavebench_core::wavelet;

pub fn run(json: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let result = if json {
        let list: Vec<_> = wavelet::all()
            .iter()
            .map(|w| {
                serde_json::json!({
                    "name": w.name, "family": w.family, "family_name": w.family_name,
                    "filter_length": w.filter_length, "orthogonal": w.orthogonal,
                    "biorthogonal": w.biorthogonal, "symmetry": w.symmetry,
                })
            })
            .collect();
        writeln!(
            out,
            "{}",
            serde_json::json!({ "pywt_version": wavelet::pywt_version(), "wavelets": list })
        )
    } else {
        (|| {
            writeln!(
                out,
                "{:<10} {:<6} {:<22} {:>6}  {:<10} symmetry",
                "name", "family", "family name", "length", "orthogonal"
            )?;
            for w in wavelet::all() {
                writeln!(
                    out,
                    "{:<10} {:<6} {:<22} {:>6}  {:<10} {}",
                    w.name,
                    w.family,
                    w.family_name,
                    w.filter_length,
                    if w.orthogonal { "yes" } else { "no" },
                    w.symmetry
                )?;
            }
            Ok(())
        })()
    };
    match result {
        // `wavebench wavelets | head`: the reader has what it wanted.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => {
            other.map_err(|e| Error::internal(format!("cannot write to standard output: {e}")))
        }
    }
}
