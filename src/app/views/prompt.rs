//! The prompt, updated live, with copy and the template editor (errors shown where typed).

use crate::app::state::Settings;
use wavebench_core::prompt::TemplateError;

pub fn ui(ui: &mut egui::Ui, prompt: Option<&Result<String, TemplateError>>, s: &mut Settings) {
    match prompt {
        Some(Ok(text)) => {
            ui.horizontal(|ui| {
                if ui
                    .button("Copy prompt")
                    .on_hover_text("Ctrl+Shift+C")
                    .clicked()
                {
                    ui.ctx().copy_text(text.clone());
                }
                ui.weak(format!(
                    "{} characters, {} words",
                    text.chars().count(),
                    text.split_whitespace().count()
                ));
            });
            egui::ScrollArea::vertical()
                .id_salt("prompt")
                .max_height((ui.available_height() - 30.0).max(60.0))
                .show(ui, |ui| {
                    ui.add(
                        egui::Label::new(egui::RichText::new(text).monospace()).selectable(true),
                    );
                });
        }
        Some(Err(e)) => {
            ui.colored_label(ui.visuals().error_fg_color, format!("template error: {e}"));
        }
        None => {
            ui.label("computing ...");
        }
    }
    egui::CollapsingHeader::new("Template editor")
        .default_open(false)
        .show(ui, |ui| {
            let edited = ui
                .add(
                    egui::TextEdit::multiline(&mut s.template_text)
                        .code_editor()
                        .desired_rows(8)
                        .desired_width(f32::INFINITY),
                )
                .changed();
            if edited {
                s.run.template = "custom".into();
            }
            if let Some(Err(TemplateError {
                line: Some(l),
                column,
                message,
            })) = prompt
            {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!(
                        "at line {l}{}: {message}",
                        column.map(|c| format!(", column {c}")).unwrap_or_default()
                    ),
                );
            }
        });
}
