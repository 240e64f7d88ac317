//! Progress of long commands: one bar (done fraction, rate, time left) on stderr when stderr is
//! a terminal; plain log lines, as before, when it is not (CI, pipes, files).
//!
//! Every line a long command writes for people goes through [`line`], which prints it above
//! the bar while one is shown, so that the bar and the lines never mix.

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;

/// The bar being shown, if any (one at a time: a command has one long loop).
static CURRENT: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Whether bars are drawn: stderr is a terminal and `MILLSTONE_PROGRESS` is not `plain`.
pub fn enabled() -> bool {
    std::io::stderr().is_terminal()
        && std::env::var("MILLSTONE_PROGRESS").map_or(true, |v| v != "plain")
}

/// A rate as people read it: `9.61 M/s`, `12.3 K/s`, `0.52/s`.
pub fn rate(per_sec: f64) -> String {
    if per_sec >= 1e6 {
        format!("{:.2} M/s", per_sec / 1e6)
    } else if per_sec >= 1e3 {
        format!("{:.1} K/s", per_sec / 1e3)
    } else {
        format!("{per_sec:.2}/s")
    }
}

/// Writes one line for people on stderr: above the bar while one is shown.
pub fn line(msg: &str) {
    let cur = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
    match cur.as_ref() {
        Some(bar) => bar.println(msg),
        None => eprintln!("{msg}"),
    }
}

/// A long command's progress: a bar on a terminal, nothing of its own otherwise (the command's
/// own lines, through [`line`], tell the progress there).
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Starts progress over `total` units of `unit` (such as "slots" or "games"), labelled
    /// `what`.
    pub fn new(what: &str, total: u64, unit: &str) -> Progress {
        if !enabled() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::new(total.max(1));
        let template = format!(
            "{what} [{{bar:30}}] {{percent:>3}}% {{human_pos}}/{{human_len}} {unit}, {{rate}}, {{eta}} left {{msg}}"
        );
        let style = ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate(s.per_sec()));
            })
            .progress_chars("=> ");
        bar.set_style(style);
        bar.enable_steady_tick(std::time::Duration::from_millis(500));
        *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
        Progress { bar: Some(bar) }
    }

    /// No bar at all (the command was asked for no progress).
    pub fn hidden() -> Progress {
        Progress { bar: None }
    }

    /// Adds `n` done units.
    pub fn inc(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc(n);
        }
    }

    /// Sets the done units.
    pub fn set(&self, done: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
    }

    /// A short note after the figures (the job running, the score so far).
    pub fn note(&self, msg: impl Into<String>) {
        if let Some(b) = &self.bar {
            b.set_message(msg.into());
        }
    }

    /// Runs `f` with the bar hidden: for work that writes its own lines straight to stderr.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }

    /// Whether a bar is shown.
    pub fn is_bar(&self) -> bool {
        self.bar.is_some()
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
            *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rates() {
        assert_eq!(super::rate(9_610_000.0), "9.61 M/s");
        assert_eq!(super::rate(12_345.0), "12.3 K/s");
        assert_eq!(super::rate(0.5), "0.50/s");
    }
}
