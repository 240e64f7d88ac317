//! `mill-serve`: the perfect tables over HTTP, for anyone, as a JSON API and an explorer page.
//!
//! The engine crate knows nothing of the web; this crate wraps its [`Tablebase`] in a small,
//! stateless, read-only service (docs/server.md has the API, deployment and measured figures).
//!
//! - [`agree`]: the answer a position must get, from the library alone (for the tests and
//!   `mill-serve-load --agree`).
//! - [`query`]: the strict query-string parser (percent-decoding, size limit, known keys).
//! - [`coverage`]: which rule sets, sub-spaces and sectors the table directory holds.
//! - [`answer`]: a position's answer (category, plies, every move, the main line) from the
//!   library, and a sector's statistics.
//! - [`cache`]: a bounded cache of hot answers, already serialised.
//! - [`limits`]: the per-client rate limit.
//! - [`api`]: the routes, errors and headers.
//! - [`explorer`]: the page at `/` and its assets.
//! - [`client`]: a minimal HTTP/1.1 client for the tests, the load benchmark and the fuzzer.
//!
//! [`Tablebase`]: millstone::tablebase::Tablebase

pub mod agree;
pub mod answer;
pub mod api;
pub mod cache;
pub mod client;
pub mod coverage;
pub mod explorer;
pub mod limits;
pub mod query;
