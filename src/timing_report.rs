//! The timing report of docs/timing.md#the-report: the runs' stage timings (the core's
//! [`RunReport`]) with the configuration and the machine, written as JSON, CSV or Markdown.

use crate::error::{Error, Result};
use serde::Serialize;
use wavebench_core::names::ReportFormat;
use wavebench_core::timing::{RunReport, Stage};

/// The machine a report was measured on.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub gpu: Option<String>,
    pub os: String,
}

impl Machine {
    pub fn describe(gpu: Option<String>) -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    l.strip_prefix("model name")
                        .map(|r| r.trim_start_matches([' ', '\t', ':']).to_string())
                })
            })
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Machine {
            cpu,
            cores,
            gpu,
            os: std::env::consts::OS.into(),
        }
    }
}

/// The report of docs/timing.md#the-report: `{"config","machine","runs":[…]}`.
#[derive(Debug, Clone, Serialize)]
pub struct Report<C: Serialize> {
    pub config: C,
    pub machine: Machine,
    pub runs: Vec<RunReport>,
    /// What else kept the machine busy while it measured (the app's other work), when
    /// anything did: the numbers may be slower than the run alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meanwhile: Option<String>,
}

impl<C: Serialize> Report<C> {
    /// The report as `json`, `csv` or `md` (Markdown).
    pub fn render(&self, format: ReportFormat) -> Result<String> {
        match format {
            ReportFormat::Json => {
                serde_json::to_string_pretty(self).map_err(|e| Error::internal(e.to_string()))
            }
            ReportFormat::Csv => Ok(self.to_csv()),
            ReportFormat::Markdown => Ok(self.to_markdown()),
        }
    }

    /// One row per engine (and variant) × stage; quoting by the csv crate's rules (device
    /// names may hold commas, quotes or line breaks).
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let header = [
            "engine",
            "device",
            "series",
            "length",
            "host_syncs",
            "stage",
            "median_ms",
            "min_ms",
            "max_ms",
            "share",
            "variant",
            "prompts_changed",
            "cache_hit_rate",
        ];
        let opt = |v: Option<String>| v.unwrap_or_default();
        // Writing to memory cannot fail.
        let _ = w.write_record(header);
        for r in &self.runs {
            for s in Stage::ALL {
                let st = &r.stages[s.name()];
                let _ = w.write_record([
                    r.engine.clone(),
                    r.device.clone(),
                    r.series.to_string(),
                    r.length.to_string(),
                    r.host_syncs.to_string(),
                    s.name().to_string(),
                    format!("{:.4}", st.median_ms),
                    format!("{:.4}", st.min_ms),
                    format!("{:.4}", st.max_ms),
                    format!("{:.4}", st.share),
                    opt(r.variant.clone()),
                    opt(r.prompts_changed.map(|v| v.to_string())),
                    opt(r.cache_hit_rate.map(|v| format!("{v:.4}"))),
                ]);
            }
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "# wavebench timing report\n\nMachine: {} ({} cores){}\n\n",
            self.machine.cpu,
            self.machine.cores,
            self.machine
                .gpu
                .as_ref()
                .map(|g| format!(", GPU {g}"))
                .unwrap_or_default()
        );
        if let Some(m) = &self.meanwhile {
            out += &format!("> **Meanwhile:** {m}\n\n");
        }
        for r in &self.runs {
            out += &format!(
                "## {} — {}{}\n\n{} series × {}, total {:.2} ms (median of {} runs), {:.0} series/s, {} host syncs\n\n",
                r.engine,
                r.device,
                r.variant.as_ref().map(|v| format!(" — {v}")).unwrap_or_default(),
                r.series,
                r.length,
                r.total_ms,
                r.repeats,
                r.series_per_s,
                r.host_syncs
            );
            if let Some(p) = &r.path {
                out += &format!("Band summaries: {p}\n\n");
            }
            if let Some(v) = &r.variant {
                let mut facts = vec![match &r.variant_means {
                    Some(m) => format!("Variant **{v}**: {m}"),
                    None => format!("Variant **{v}**"),
                }];
                if let (Some(c), Some(n)) = (r.prompts_changed, r.prompts) {
                    facts.push(format!("{c} of {n} prompts differ from the baseline's"));
                }
                if let Some(h) = r.cache_hit_rate {
                    facts.push(format!("cache hit rate {:.1} %", h * 100.0));
                }
                if let Some(k) = r.seed_key_collisions {
                    facts.push(format!(
                        "the seed's statistics key would have returned another window's prompt for {k} windows"
                    ));
                }
                out += &format!("{}.\n\n", facts.join("; "));
            }
            out += "| stage | median ms | min ms | max ms | share |\n|---|---:|---:|---:|---:|\n";
            for s in Stage::ALL {
                let st = &r.stages[s.name()];
                out += &format!(
                    "| {} | {:.3} | {:.3} | {:.3} | {:.1} % |\n",
                    s.name(),
                    st.median_ms,
                    st.min_ms,
                    st.max_ms,
                    st.share * 100.0
                );
            }
            let ms = |s: Stage| r.stages[s.name()].median_ms;
            if ms(Stage::Trend) == 0.0 && ms(Stage::Quality) == 0.0 && ms(Stage::Decompose) > 0.0 {
                out += "\n`trend` and `quality` read 0 ms because their sums are taken inside \
                        `decompose` and `frequency` (one pass over each band), where their \
                        time is counted.\n";
            }
            out += "\n";
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use wavebench_core::timing::Timer;

    #[test]
    fn csv_report_quotes_awkward_device_names() {
        let mut t = Timer::new(false);
        t.add(Stage::Decompose, Duration::from_millis(3));
        let device = "GPU \"A\", rev 2\r\nsecond line";
        let report = Report {
            config: (),
            machine: Machine::describe(None),
            runs: vec![RunReport::from_runs("native", device, 10, 64, &[t])],
            meanwhile: None,
        };
        let text = report.render(ReportFormat::Csv).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
        assert_eq!(rows.len(), Stage::ALL.len());
        assert!(rows.iter().all(|row| row.len() == 13 && &row[1] == device));
        let decompose = rows.iter().find(|row| &row[5] == "decompose").unwrap();
        assert_eq!(&decompose[6], "3.0000");
    }
}
