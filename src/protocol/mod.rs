//! The text protocol: UCI's grammar with the mill game's meaning, plus UGI's aliases and
//! queries. `protocol.md` at the repository root is the specification; this module implements it.
//!
//! - [`reader`]: a thread that reads the input as bytes and hands over lines.
//! - [`command`]: the typed commands and their parser.
//! - [`options`]: the options table.
//! - [`format`]: every output line.
//! - [`output`]: the one locked writer all lines go through.
//! - [`session`]: the dispatch loop's state and the command semantics.

pub mod command;
pub mod format;
pub mod options;
pub mod output;
pub mod reader;
pub mod session;

pub use command::{Command, CommandError};
pub use output::Output;
pub use session::{Flow, Session};

use std::collections::VecDeque;
use std::io::BufRead;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

/// Runs the loop on `input` until `quit` or the end of the input. A running search is told to
/// stop but not waited for: the caller is expected to exit the process at once.
pub fn run(input: impl BufRead + Send + 'static, out: Output) {
    serve(Session::new(out), input);
}

/// Runs the loop of `session` on `input` (see [`run`]).
pub fn serve(mut session: Session, input: impl BufRead + Send + 'static) {
    let rx = reader::spawn(input);
    // Commands that came while a `readyok` was owed, in order.
    let mut held: VecDeque<reader::Input> = VecDeque::new();
    loop {
        let event = if session.owes_readyok() {
            match rx.recv_timeout(Duration::from_millis(5)) {
                Ok(e) if cannot_wait(&e, held.is_empty()) => e,
                Ok(e) => {
                    held.push_back(e);
                    continue;
                }
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => reader::Input::Eof,
            }
        } else if let Some(e) = held.pop_front() {
            e
        } else {
            match rx.recv() {
                Ok(e) => e,
                Err(_) => break,
            }
        };
        if session.handle(event) == Flow::Quit {
            break;
        }
    }
    session.shutdown();
}

/// Whether an input is handled at once even while a `readyok` is owed: `quit` and the end
/// of the input always, `stop` when no held command could be the search it means.
fn cannot_wait(e: &reader::Input, nothing_held: bool) -> bool {
    match e {
        reader::Input::Eof => true,
        reader::Input::Line(l) => match l.split_whitespace().next() {
            Some("quit") => true,
            Some("stop") => nothing_held,
            _ => false,
        },
        reader::Input::Bad(_) => false,
    }
}

/// Runs the loop on stdin and stdout.
pub fn run_stdio() {
    let input = std::io::BufReader::with_capacity(1 << 16, std::io::stdin());
    run(input, Output::stdout());
}
