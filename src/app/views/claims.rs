//! The claims a researcher defines (docs/score.md#claims-you-define), typed in the Sweep
//! pane as text and kept in the run's `[claims]`.

use crate::app::state::Settings;
use wavebench_core::score::ClaimSpecs;

/// The claims a researcher defines (docs/score.md#claims-you-define), edited as text: one
/// `NAME[:OUTCOME]=TEMPLATE` per line. Lines that parse go into the run's `[claims]`
/// (what the next sweep and the Data set pane score); a line that does not says why.
#[derive(Debug, Default)]
pub struct ClaimEditor {
    pub text: String,
    /// The claims this text last put in (or took from) the settings: the settings
    /// changing otherwise (another file's) rewrite the text.
    applied: ClaimSpecs,
    /// The text as last parsed.
    parsed: Option<String>,
    pub error: Option<String>,
}

impl ClaimEditor {
    /// Keep the text and the run's claims in step; the parsed claims go into `s`. The
    /// text is parsed (each claim compiled) only when it changes.
    fn sync(&mut self, s: &mut Settings) {
        if s.run.claims != self.applied {
            self.text = s.run.claims.iter().map(|c| format!("{c}\n")).collect();
            self.applied = s.run.claims.clone();
        }
        if self.parsed.as_deref() == Some(self.text.as_str()) {
            return;
        }
        self.parsed = Some(self.text.clone());
        match parse_claims(&self.text) {
            Ok(claims) => {
                self.error = None;
                if claims != s.run.claims {
                    s.run.claims = claims.clone();
                    self.applied = claims;
                }
            }
            Err(e) => self.error = Some(crate::app::error::said(&e)),
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, s: &mut Settings) {
        self.sync(s);
        let n = s.run.claims.len();
        egui::CollapsingHeader::new(format!("Claims you define ({n})"))
            .id_salt("claims you define")
            .show(ui, |ui| {
                ui.label("One per line: NAME=TEMPLATE, or NAME:OUTCOME=TEMPLATE to add it to every score (outcomes: direction, naive_mase, vol_ratio). The template sees every feature, last and mean; its text is the claim's category.");
                ui.add(
                    egui::TextEdit::multiline(&mut self.text)
                        .code_editor()
                        .desired_rows(2)
                        .desired_width(f32::INFINITY)
                        .hint_text(r#"level:direction={{ "above" if last > mean else "below" }} its window mean"#),
                );
                if let Some(e) = &self.error {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
            });
        self.sync(s);
    }
}

/// The editor's lines as `[claims]` (blank lines and `#` comments skipped); the error
/// names the line.
fn parse_claims(text: &str) -> crate::error::Result<ClaimSpecs> {
    use crate::error::Error;
    let mut out = ClaimSpecs::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.define(line)
            .map_err(|e| Error::from(e).within(&format!("line {}", i + 1)))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::parse_claims;

    /// The editor refuses a name defined twice by the core's rule (under any outcome),
    /// naming the line, as `--claim` and `[claims]` do.
    #[test]
    fn a_claim_defined_twice_is_refused_at_its_line() {
        let ok = parse_claims("# mine\nlevel=x\n\nup:direction=y").unwrap();
        assert_eq!(
            ok.iter().map(|c| c.key()).collect::<Vec<_>>(),
            ["level", "up:direction"]
        );
        let twice = parse_claims("level=x\nlevel:direction=y").unwrap_err();
        assert_eq!(twice.to_string(), "line 2: claim 'level' is defined twice");
    }
}
