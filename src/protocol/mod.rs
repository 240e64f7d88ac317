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

use std::io::BufRead;

/// Runs the loop on `input` until `quit` or the end of the input. A running search is told to
/// stop but not waited for: the caller is expected to exit the process at once.
pub fn run(input: impl BufRead + Send + 'static, out: Output) {
    let rx = reader::spawn(input);
    let mut session = Session::new(out);
    for event in rx {
        if session.handle(event) == Flow::Quit {
            break;
        }
    }
    session.shutdown();
}

/// Runs the loop on stdin and stdout.
pub fn run_stdio() {
    let input = std::io::BufReader::with_capacity(1 << 16, std::io::stdin());
    run(input, Output::stdout());
}
