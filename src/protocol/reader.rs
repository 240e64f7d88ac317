//! The input side: a thread that reads stdin as bytes and hands whole lines to the loop.
//!
//! Reading happens on its own thread so that the loop only ever waits on a channel, and so that
//! a GUI that floods the pipe cannot make the loop's memory grow without bound: a line longer
//! than [`MAX_LINE`] is skipped (never held in full) and reported as an error.

use std::fmt;
use std::io::{BufRead, ErrorKind};
use std::sync::mpsc::{self, Receiver};
use std::thread;

/// The longest line accepted, in bytes, without its line ending.
pub const MAX_LINE: usize = 64 * 1024;

/// Why a line could not be turned into text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The line had more than [`MAX_LINE`] bytes; it was dropped.
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// The line was not valid UTF-8.
    BadUtf8 {
        /// Byte offset of the first invalid byte.
        at: usize,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::TooLong { len } => {
                write!(f, "line of {len} bytes ignored (the limit is {MAX_LINE})")
            }
            ReadError::BadUtf8 { at } => {
                write!(f, "line ignored: invalid UTF-8 at byte {at}")
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// One event from the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A line of text, without its line ending.
    Line(String),
    /// A line that was dropped, and why.
    Bad(ReadError),
    /// The input ended (or failed, which the loop treats the same).
    Eof,
}

/// Reads the next line into `buf` (cleared first), keeping at most `MAX_LINE + 1` bytes.
/// Returns the full length of the line, or `None` at the end of the input.
fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Option<usize>> {
    buf.clear();
    let mut len = 0usize;
    let mut seen_any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(seen_any.then_some(len));
        }
        seen_any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        let room = (MAX_LINE + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&part[..part.len().min(room)]);
        len += part.len();
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            return Ok(Some(len));
        }
    }
}

/// Turns raw line bytes (at most `MAX_LINE + 1` of a line `len` bytes long) into an event.
fn decode(mut bytes: Vec<u8>, mut len: usize) -> Input {
    // A CR before the LF comes from GUIs on Windows; it is a line ending, not content.
    if bytes.len() == len && bytes.last() == Some(&b'\r') {
        bytes.pop();
        len -= 1;
    }
    if len > MAX_LINE {
        return Input::Bad(ReadError::TooLong { len });
    }
    match String::from_utf8(bytes) {
        Ok(s) => Input::Line(s),
        Err(e) => Input::Bad(ReadError::BadUtf8 {
            at: e.utf8_error().valid_up_to(),
        }),
    }
}

/// Starts the reader thread on `input`. The channel carries every line in order and ends with
/// [`Input::Eof`]; the thread ends after sending it.
pub fn spawn(mut input: impl BufRead + Send + 'static) -> Receiver<Input> {
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("millstone-reader".into())
        .spawn(move || {
            let mut buf = Vec::with_capacity(256);
            loop {
                let event = match next_line(&mut input, &mut buf) {
                    Ok(Some(len)) => decode(std::mem::take(&mut buf), len),
                    Ok(None) => Input::Eof,
                    Err(e) => {
                        log::warn!("reading the input failed: {e}");
                        Input::Eof
                    }
                };
                let eof = event == Input::Eof;
                if tx.send(event).is_err() || eof {
                    return;
                }
            }
        })
        .expect("the reader thread can be started");
    rx
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn all(bytes: &[u8]) -> Vec<Input> {
        let rx = spawn(Cursor::new(bytes.to_vec()));
        rx.iter().collect()
    }

    #[test]
    fn lines_endings_and_eof() {
        assert_eq!(
            all(b"uci\r\n\nisready"),
            vec![
                Input::Line("uci".into()),
                Input::Line(String::new()),
                Input::Line("isready".into()),
                Input::Eof
            ]
        );
        assert_eq!(all(b""), vec![Input::Eof]);
    }

    #[test]
    fn long_and_invalid_lines() {
        let mut data = vec![b'a'; MAX_LINE + 10];
        data.extend_from_slice(b"\nab\xffc\n");
        data.extend_from_slice(&[b'b'; MAX_LINE]);
        data.push(b'\n');
        let got = all(&data);
        assert_eq!(
            got[0],
            Input::Bad(ReadError::TooLong { len: MAX_LINE + 10 })
        );
        assert_eq!(got[1], Input::Bad(ReadError::BadUtf8 { at: 2 }));
        assert_eq!(got[2], Input::Line("b".repeat(MAX_LINE)));
        assert_eq!(got[3], Input::Eof);
    }
}
