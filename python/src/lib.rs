//! Python bindings of Millstone (the `millstone` package's native module `millstone._millstone`).
//!
//! - [`position`]: `Position`, a game with history, legal moves as tokens and action ids.
//! - [`encoding`]: the versioned action encoding.
//! - [`vecenv`]: `VectorEnv`, n games stepped in Rust with the GIL released.
//! - [`engine`]: `Engine` (the search) and `Tablebase` (exact values).
//!
//! See `docs/python.md`.

// pyo3 0.22's #[pymethods] expansion converts every PyResult's error into PyErr again, which
// newer clippy flags in our code's spans.
#![allow(clippy::useless_conversion)]

mod core;
pub mod encoding;
pub mod engine;
pub mod position;
pub mod vecenv;

use crate::core::OBS_PLANES;
use encoding::{base_id, full_id, full_move, ENCODING_VERSION, NUM_FULL, NUM_TWO_STEP};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The complete-move id of a move token (``"d6-d5xa1"``).
#[pyfunction]
fn encode_move(token: &str) -> PyResult<usize> {
    Ok(full_id(position::parse_move(token)?))
}

/// The move token of a complete-move id.
#[pyfunction]
fn decode_action(action: usize) -> PyResult<String> {
    full_move(action)
        .map(|m| m.to_string())
        .ok_or_else(|| PyValueError::new_err(format!("action {action} is no move")))
}

/// The two-step ids of a move token: ``[base]`` or ``[base, removal]``.
#[pyfunction]
fn encode_two_step(token: &str) -> PyResult<Vec<usize>> {
    let m = position::parse_move(token)?;
    let mut v = vec![base_id(m)];
    if let Some(r) = m.removal() {
        v.push(r.index());
    }
    Ok(v)
}

#[pymodule]
fn _millstone(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<position::PyPosition>()?;
    m.add_class::<vecenv::VectorEnv>()?;
    m.add_class::<engine::PyEngine>()?;
    m.add_class::<engine::PyTablebase>()?;
    m.add_function(wrap_pyfunction!(encode_move, m)?)?;
    m.add_function(wrap_pyfunction!(decode_action, m)?)?;
    m.add_function(wrap_pyfunction!(encode_two_step, m)?)?;
    m.add("ENCODING_VERSION", ENCODING_VERSION)?;
    m.add("NUM_ACTIONS", NUM_FULL)?;
    m.add("NUM_TWO_STEP_ACTIONS", NUM_TWO_STEP)?;
    m.add("OBSERVATION_SHAPE", (OBS_PLANES, 24))?;
    m.add(
        "POINTS",
        millstone::types::POINT_NAMES
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
