//! The screenshot tour (`wavebench gui FILE --screenshots DIR`, what
//! `scripts/screenshot.sh` runs under Xvfb), as Rerun's viewer has `--screenshot-to`: the
//! real window brings each pane to the front by its title, waits for what the pane
//! computes, saves the window as `DIR/NAME.png`, and closes once every picture is written.
//! Every pane is on one of the four: the dashboard (Series, Bands, Energy, Features, Prompt,
//! Timing), Data set, Sweep and Compare.

use super::layout::Pane;
use super::Workbench;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One thing the tour does, in order.
#[derive(Debug, Clone)]
enum Step {
    /// Bring the pane titled so to the front of its tab group.
    Show(&'static str),
    /// Wait until the state holds, then a few frames more for the layout to settle.
    Wait(Until),
    StartSweep,
    /// Pin the shown configuration as B, and show A at the deepest level the window allows.
    PinAndDeepen,
    /// Save the window as `NAME.png`.
    Shot(&'static str),
}

#[derive(Debug, Clone, Copy)]
enum Until {
    /// The shown result answers the knobs.
    Idle,
    /// The Data set pane's survey has come back.
    Survey,
    /// No job is running and the sweep's table is there.
    Sweep,
}

/// The tour's pictures, in the order taken: `DIR/NAME.png`.
pub const PICTURES: [&str; 4] = ["dashboard", "dataset", "sweep", "compare"];

/// Where the tour writes its pictures in `dir`.
pub fn pictures(dir: &std::path::Path) -> [PathBuf; 4] {
    PICTURES.map(|name| dir.join(format!("{name}.png")))
}

/// Frames drawn after a wait's condition holds, before the picture: plots fit their data
/// and tables measure their columns over a few frames.
const SETTLE_FRAMES: u32 = 20;

pub struct Tour {
    dir: PathBuf,
    steps: VecDeque<Step>,
    settled: u32,
    /// Pictures asked for and pictures written (the integration writes them after the
    /// frame, on its own time).
    asked: usize,
    written: Arc<AtomicUsize>,
    /// The first picture that could not be written, said once the window closes.
    pub failure: Arc<Mutex<Option<String>>>,
}

impl Tour {
    pub fn new(dir: PathBuf) -> Self {
        use Step::*;
        Tour {
            dir,
            steps: VecDeque::from([
                Wait(Until::Idle),
                Show("Bands"),
                Wait(Until::Idle),
                Shot(PICTURES[0]),
                Show("Data set"),
                Wait(Until::Survey),
                Shot(PICTURES[1]),
                Show("Sweep"),
                StartSweep,
                Wait(Until::Sweep),
                Shot(PICTURES[2]),
                PinAndDeepen,
                Show("Compare"),
                Wait(Until::Idle),
                Shot(PICTURES[3]),
            ]),
            settled: 0,
            asked: 0,
            written: Arc::new(AtomicUsize::new(0)),
            failure: Arc::new(Mutex::new(None)),
        }
    }
}

impl Workbench {
    /// Take the screenshot tour into `dir` (what `gui --screenshots` does).
    pub fn take_tour(&mut self, dir: PathBuf) {
        self.tour = Some(Tour::new(dir));
    }

    /// Whether the tour has taken every step and its pictures are written; None without
    /// a tour.
    pub fn tour_done(&self) -> Option<bool> {
        self.tour
            .as_ref()
            .map(|t| t.steps.is_empty() && t.written.load(Ordering::Acquire) >= t.asked)
    }

    /// Why the tour could not take or write a picture, if it could not.
    pub fn tour_failure(&self) -> Option<String> {
        self.tour
            .as_ref()
            .and_then(|t| t.failure.lock().ok().and_then(|f| f.clone()))
    }

    /// Take the tour's next step where it can be taken this frame; close the window once
    /// every picture is written.
    pub(super) fn tour_step(&mut self, ctx: &egui::Context) {
        let Some(mut tour) = self.tour.take() else {
            return;
        };
        // The tour drives itself: frames keep coming while it lasts.
        ctx.request_repaint();
        match tour.steps.front().cloned() {
            None => {
                if tour.written.load(Ordering::Acquire) >= tour.asked {
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
            }
            Some(Step::Show(title)) => {
                let pane = Pane::ALL.into_iter().find(|p| p.title() == title);
                let found = pane.is_some_and(|pane| {
                    self.layout_mut().make_active(
                        |_, tile| matches!(tile, egui_tiles::Tile::Pane(p) if *p == pane),
                    )
                });
                if !found {
                    tour.fail(format!("no pane titled '{title}' in the layout"));
                }
                tour.steps.pop_front();
            }
            Some(Step::Wait(until)) => {
                let holds = match until {
                    Until::Idle => self.is_idle(),
                    Until::Survey => self.views.dataset.survey.is_some() && !self.window.busy,
                    Until::Sweep => !self.job_running() && self.views.sweep.sweep.is_some(),
                };
                if holds {
                    tour.settled += 1;
                }
                if tour.settled > SETTLE_FRAMES {
                    tour.settled = 0;
                    tour.steps.pop_front();
                }
            }
            Some(Step::StartSweep) => {
                self.start_sweep();
                tour.steps.pop_front();
            }
            Some(Step::PinAndDeepen) => {
                self.pin_for_compare();
                let seq_len = self.settings.seq_len();
                let t = &mut self.settings.run.transform;
                t.level = t.max_level(seq_len).max(1);
                tour.steps.pop_front();
            }
            Some(Step::Shot(name)) => {
                let path = tour.dir.join(format!("{name}.png"));
                let (written, failure) = (tour.written.clone(), tour.failure.clone());
                tour.asked += 1;
                ctx.request_screenshot(move |image| {
                    let [w, h] = image.size;
                    let pixels: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
                    let saved = image::RgbaImage::from_raw(w as u32, h as u32, pixels)
                        .ok_or_else(|| "the window's pixels do not fill its size".to_string())
                        .and_then(|img| img.save(&path).map_err(|e| e.to_string()));
                    if let Err(e) = saved {
                        failure
                            .lock()
                            .map(|mut f| {
                                f.get_or_insert(format!("{}: {e}", path.display()));
                            })
                            .ok();
                    }
                    written.fetch_add(1, Ordering::Release);
                });
                tour.steps.pop_front();
            }
        }
        self.tour = Some(tour);
    }
}

impl Tour {
    fn fail(&self, why: String) {
        if let Ok(mut f) = self.failure.lock() {
            f.get_or_insert(why);
        }
    }
}
