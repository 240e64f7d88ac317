//! A minimal HTTP/1.1 client over one keep-alive connection, for the tests, the load benchmark
//! and the fuzzer. Written by hand rather than taken from a library because the fuzzer must
//! send what a well-behaved client library refuses to: raw bytes, broken escapes, any method.

use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// The longest header block accepted from the server (it sends a few hundred bytes).
const MAX_HEAD: usize = 64 * 1024;

/// One response.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Result<serde_json::Value, String> {
        serde_json::from_slice(&self.body).map_err(|e| {
            format!(
                "status {} body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// A connection to the server.
pub struct Conn {
    addr: String,
    stream: Option<BufReader<TcpStream>>,
}

fn bad(msg: impl Into<String>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg.into())
}

impl Conn {
    /// A client of `addr` (`host:port`); it connects on the first request and again after the
    /// server closes.
    pub fn new(addr: &str) -> Conn {
        Conn {
            addr: addr.to_string(),
            stream: None,
        }
    }

    /// `GET target`.
    pub async fn get(&mut self, target: &str) -> std::io::Result<Reply> {
        self.request(b"GET", target.as_bytes()).await
    }

    /// Any method and any bytes as the request target, within `timeout`.
    pub async fn request_timeout(
        &mut self,
        method: &[u8],
        target: &[u8],
        timeout: Duration,
    ) -> std::io::Result<Reply> {
        match tokio::time::timeout(timeout, self.request(method, target)).await {
            Ok(r) => r,
            Err(_) => {
                self.stream = None;
                Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "no answer in time",
                ))
            }
        }
    }

    /// Any method and any bytes as the request target.
    pub async fn request(&mut self, method: &[u8], target: &[u8]) -> std::io::Result<Reply> {
        let mut req = Vec::with_capacity(target.len() + 64);
        req.extend_from_slice(method);
        req.push(b' ');
        req.extend_from_slice(target);
        req.extend_from_slice(b" HTTP/1.1\r\nHost: localhost\r\n\r\n");
        // A kept-alive connection the server closed meanwhile fails on first use: retry once
        // on a fresh one.
        let reused = self.stream.is_some();
        match self.exchange(&req).await {
            Err(_) if reused => {
                self.stream = None;
                self.exchange(&req).await
            }
            r => r,
        }
    }

    async fn exchange(&mut self, req: &[u8]) -> std::io::Result<Reply> {
        if self.stream.is_none() {
            let s = TcpStream::connect(&self.addr).await?;
            s.set_nodelay(true)?;
            self.stream = Some(BufReader::new(s));
        }
        let head = req.starts_with(b"HEAD ");
        let r = self.exchange_on(req, head).await;
        match &r {
            Ok(reply) if reply.header("connection") != Some("close") => {}
            _ => self.stream = None,
        }
        r
    }

    async fn exchange_on(&mut self, req: &[u8], head_only: bool) -> std::io::Result<Reply> {
        let s = self.stream.as_mut().expect("connected");
        s.get_mut().write_all(req).await?;
        let mut line = String::new();
        let mut head = 0;
        s.read_line(&mut line).await?;
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse::<u16>().ok())
            .ok_or_else(|| bad(format!("no status line: {line:?}")))?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            let n = s.read_line(&mut line).await?;
            head += n;
            if n == 0 || head > MAX_HEAD {
                return Err(bad("headers cut or too long"));
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let find = |name: &str| {
            headers
                .iter()
                .find(|(k, _): &&(String, String)| k == name)
                .map(|(_, v)| v.clone())
        };
        let mut body = Vec::new();
        // A HEAD answer, a 204 and a 304 have no body, whatever their headers announce.
        if head_only || status == 204 || status == 304 {
        } else if let Some(len) = find("content-length") {
            let len: usize = len.parse().map_err(|_| bad("bad content-length"))?;
            body.resize(len, 0);
            s.read_exact(&mut body).await?;
        } else if find("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
            loop {
                line.clear();
                s.read_line(&mut line).await?;
                let size = usize::from_str_radix(line.trim(), 16).map_err(|_| bad("bad chunk"))?;
                let start = body.len();
                body.resize(start + size, 0);
                s.read_exact(&mut body[start..]).await?;
                line.clear();
                s.read_line(&mut line).await?;
                if size == 0 {
                    break;
                }
            }
        }
        Ok(Reply {
            status,
            headers,
            body,
        })
    }
}

/// Percent-encodes a query component (everything but unreserved characters).
pub fn encode(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for &b in s {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The API's path for a position of a rule set.
pub fn position_target(fen: &str, variant: &str, flying: bool) -> String {
    format!(
        "/api/v1/position?fen={}&variant={variant}&flying={flying}",
        encode(fen.as_bytes())
    )
}
