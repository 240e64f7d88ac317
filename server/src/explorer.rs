//! The explorer page at `/`: the board of mill-gui (its `board.js`, served as is), a click to
//! play, every legal move coloured by its value, the position in the URL. Built into the
//! binary, so a deployment is one file plus the tables.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

const INDEX: &str = include_str!("../web/index.html");
const EXPLORER_JS: &str = include_str!("../web/explorer.js");
const STYLE: &str = include_str!("../web/explorer.css");
/// mill-gui's board, shared rather than copied: one drawing of the board for both programs.
const BOARD_JS: &str = include_str!("../../gui/web/board.js");
const ICON: &str = include_str!("../../gui/web/icon.svg");

fn asset(kind: &'static str, body: &'static str) -> Response {
    // Assets change with the binary; `no-cache` revalidates them cheaply after an upgrade.
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// The page's routes.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX) }),
        )
        .route(
            "/explorer.js",
            get(|| async { asset("text/javascript", EXPLORER_JS) }),
        )
        .route(
            "/board.js",
            get(|| async { asset("text/javascript", BOARD_JS) }),
        )
        .route("/explorer.css", get(|| async { asset("text/css", STYLE) }))
        .route("/icon.svg", get(|| async { asset("image/svg+xml", ICON) }))
}
