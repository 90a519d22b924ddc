//! Everything the app writes: the whole data set's prompts and features (jobs), the
//! timing report, the configuration (the TOML the CLI reads), the plots as PNG; and the
//! file dialogs that ask where.

use super::messages::JobKind;
use super::Workbench;
use std::path::PathBuf;

impl Workbench {
    /// Export every window's prompt (JSONL) in the background.
    pub fn export_prompts(&mut self, path: PathBuf) {
        self.start("prompt export", |table, settings| JobKind::ExportPrompts {
            table,
            settings,
            path,
        });
    }

    /// Export every window's features (Parquet, CSV or JSONL by extension) in the background.
    pub fn export_features(&mut self, path: PathBuf) {
        self.start("feature export", |table, settings| {
            JobKind::ExportFeatures {
                table,
                settings,
                path,
            }
        });
    }

    /// Measure the whole data set under the current settings (the baseline and the
    /// proposals switched on in the Timing pane) in the background, and write its timing
    /// report; the format follows the extension (`.json`, `.csv`, `.md`). One window's
    /// inspection is not what a timing report is read as.
    pub fn export_timing(&mut self, path: &std::path::Path) {
        let chosen = self.views.timing.chosen();
        let report = Some(path.to_path_buf());
        self.start("timing export", |table, settings| JobKind::Variants {
            table,
            settings,
            chosen,
            report,
        });
    }

    /// Write the configuration as the TOML the CLI reads (`--config`).
    pub fn export_configuration(&mut self, path: PathBuf) {
        let toml = crate::config::to_toml(&self.settings.config());
        self.write_file("configuration export", path, toml.into_bytes());
    }

    /// Write a small file off the UI thread (atomically), reporting like any job.
    pub(super) fn write_file(&mut self, what: &str, path: PathBuf, bytes: Vec<u8>) {
        if self.job.is_some() {
            self.status
                .say(format!("{what}: wait for the running job to finish"));
            return;
        }
        self.status.say(format!("{what} ..."));
        self.job = Some(self.worker.start(what, JobKind::Write { path, bytes }));
    }

    /// Save the window as PNG (asynchronously, when the next frame is drawn).
    pub(super) fn export_png(&mut self, ctx: &egui::Context, path: PathBuf) {
        let shown = path.display().to_string();
        ctx.send_viewport_cmd(egui::ViewportCommand::Screenshot(
            egui::ScreenshotCallback::new(move |img| {
                let bytes: Vec<u8> = img
                    .pixels
                    .iter()
                    .flat_map(|c| c.to_srgba_unmultiplied())
                    .collect();
                let Some(buf) =
                    image::RgbaImage::from_raw(img.size[0] as u32, img.size[1] as u32, bytes)
                else {
                    return;
                };
                // Atomic like every other output: a failed write leaves no half PNG.
                let written = crate::export::write_atomic(&path, |w| {
                    let mut png = std::io::Cursor::new(Vec::new());
                    buf.write_to(&mut png, image::ImageFormat::Png)
                        .map_err(std::io::Error::other)?;
                    w.write_all(png.get_ref())
                });
                if let Err(e) = written {
                    eprintln!("wavebench: cannot write PNG: {e}");
                }
            }),
        ));
        self.status.say(format!("plots will be written to {shown}"));
    }
}

/// The save dialog, proposing `name`.
pub(super) fn save_as(name: &str) -> Option<PathBuf> {
    rfd::FileDialog::new().set_file_name(name).save_file()
}

/// What File > Open says when no dialog came up.
pub(super) const DIALOG_HINT: &str = "No file chosen (if no dialog appeared, this desktop has no file-dialog service: drop a file on the window, or start with `wavebench gui FILE`)";
