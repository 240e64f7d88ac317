//! The output side: one writer shared by the loop and the search thread.
//!
//! Every line is written and flushed while a lock is held, so lines from the two threads never
//! interleave, and a GUI sees each line as soon as it is complete.

use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};

type Sink = Box<dyn Write + Send>;

/// A cloneable handle to the protocol's output.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Sink>>);

/// The output locked for a sequence of lines that must stay together (and for acting on shared
/// state in step with writing, as the end of a search does).
pub struct Locked<'a>(MutexGuard<'a, Sink>);

impl Output {
    /// Output to any writer (tests use a buffer).
    pub fn new(w: impl Write + Send + 'static) -> Output {
        Output(Arc::new(Mutex::new(Box::new(w))))
    }

    /// Output to stdout.
    pub fn stdout() -> Output {
        Output::new(std::io::stdout())
    }

    /// Locks the output.
    pub fn lock(&self) -> Locked<'_> {
        // A thread that panicked while writing leaves at worst a partial line; carrying on is
        // better than going silent.
        Locked(self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Writes one line.
    pub fn line(&self, s: &str) {
        self.lock().line(s);
    }

    /// Writes lines with nothing in between.
    pub fn lines(&self, v: &[String]) {
        let mut w = self.lock();
        for s in v {
            w.line(s);
        }
    }
}

impl Locked<'_> {
    /// Writes one line and flushes it.
    pub fn line(&mut self, s: &str) {
        let r = writeln!(self.0, "{s}").and_then(|_| self.0.flush());
        if let Err(e) = r {
            // The reader notices a vanished GUI as the end of input; here there is nobody left
            // to tell.
            log::debug!("writing to the output failed: {e}");
        }
    }
}
