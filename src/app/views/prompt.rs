//! The prompt, updated live, with copy and the template editor (errors shown where typed).

use crate::app::commands::{Commands, UiCommand};
use crate::app::state::Settings;
use wavebench_core::prompt::TemplateError;

/// Draw; the copy button asks for [`UiCommand::CopyPrompt`] (the shortcut's command).
pub fn ui(
    ui: &mut egui::Ui,
    prompt: Option<&Result<String, TemplateError>>,
    s: &mut Settings,
    commands: &mut Commands,
) {
    // Whether the template editor was open last frame (remembered below).
    let editor_id = ui.make_persistent_id("template editor open");
    let editor = ui.data(|d| d.get_temp::<bool>(editor_id)).unwrap_or(false);
    match prompt {
        Some(Ok(text)) => {
            ui.horizontal(|ui| {
                let copy = UiCommand::CopyPrompt;
                let keys = copy.keys(ui.ctx());
                if copy.button(ui, true).on_hover_text(keys).clicked() {
                    commands.send(copy);
                }
                ui.weak(format!(
                    "{} characters, {} words",
                    text.chars().count(),
                    text.split_whitespace().count()
                ));
            });
            // With the template editor open, the prompt takes a third of the pane so the
            // editor opens in view (it opened below the pane's visible part).
            let room = ui.available_height();
            let height = if editor { room / 3.0 } else { room - 30.0 };
            egui::ScrollArea::vertical()
                .id_salt("prompt")
                .max_height(height.max(60.0))
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
    let shown = egui::CollapsingHeader::new("Template editor")
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
                s.run.template = wavebench_core::prompt::TemplateSource::Editor;
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
    let open = shown.openness > 0.0;
    if open != editor {
        ui.data_mut(|d| d.insert_temp(editor_id, open));
        ui.ctx().request_repaint();
    }
}
