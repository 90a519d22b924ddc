//! The Data set pane's survey thread: the current configuration over every window, the
//! newest request only, on its own thread (a survey of a large data set must not hold back
//! the window the knobs show); the scored units and their statistics are kept while only
//! the wavelet, level, mode or template change.

use super::messages::{Reply, SurveyRequest};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use wavebench_core::config::Config;
use wavebench_core::prompt::Prompter;

/// The scored units of the last survey, and what they were made for: a wavelet, level,
/// mode or template change scores on the same units.
type ScorerKey = (usize, Config, wavebench_core::score::Split);

/// Survey the newest request, skipping those a newer knob change replaced.
pub(super) fn serve(requests: Receiver<SurveyRequest>, replies: Sender<Reply>, wake: impl Fn()) {
    let mut kept: Option<(ScorerKey, crate::sweep::Kept)> = None;
    while let Ok(mut req) = requests.recv() {
        while let Ok(next) = requests.try_recv() {
            req = next;
        }
        super::messages::OTHER_WORK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let result = survey(&req, &mut kept).map(Box::new);
        let _ = replies.send(Reply::Surveyed {
            gen: req.gen,
            result,
        });
        wake();
    }
}

fn survey(
    req: &SurveyRequest,
    kept: &mut Option<(ScorerKey, crate::sweep::Kept)>,
) -> crate::error::Result<crate::sweep::survey::Survey> {
    let s = &req.settings;
    let prompter = Prompter::new(&s.template_text).map_err(super::error::in_template)?;
    let sweep_req = crate::sweep::Request {
        base: Config {
            seq_len: Some(s.seq_len()),
            ..s.run.clone()
        },
        grid: Default::default(),
        templates: vec![(s.template_label(), Arc::new(prompter))],
        split: req.split,
        protocol: Default::default(),
    };
    let name = req.table.path.display().to_string();
    let tables = [(name.as_str(), &*req.table)];
    // Only the data options, the horizon and the split shape the scored units.
    let key: ScorerKey = (
        Arc::as_ptr(&req.table) as usize,
        Config {
            transform: Default::default(),
            template: String::new(),
            description: String::new(),
            claims: Default::default(),
            ..sweep_req.base.clone()
        },
        req.split,
    );
    // The scored units and the statistics, kept while only the wavelet, level, mode or
    // template change (the statistics do not depend on them).
    let mut scored = match kept.take() {
        Some((k, scored)) if k == key => scored,
        _ => crate::sweep::Kept::new(crate::sweep::scorer(&tables, &sweep_req)?),
    };
    let result =
        crate::sweep::survey::Survey::of(&name, &req.table, &sweep_req, &mut scored, s.channel);
    *kept = Some((key, scored));
    result
}
