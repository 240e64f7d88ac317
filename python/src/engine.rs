//! `millstone.Engine` and `millstone.Tablebase`: the search and the exact tables in-process.

use crate::position::{rules_of, PyPosition};
use millstone::search::{self, Limits, Score};
use millstone::skill::Skill;
use millstone::tablebase::{Probe, Tablebase, Wdl};
use millstone::{Game, Rules};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::Duration;

/// The game of a `Position` as the engine's `Game` (start position and moves).
fn game_of(p: &PyPosition) -> PyResult<Game> {
    if p.core.pending().is_some() {
        return Err(PyValueError::new_err(
            "a removal is pending (two-step form): complete or undo the move first",
        ));
    }
    let mut g = Game::new(*p.core.start());
    for &m in p.core.moves() {
        g.play(m)
            .map_err(|e| PyRuntimeError::new_err(format!("replaying {m}: {e}")))?;
    }
    Ok(g)
}

/// The engine's search in-process.
///
/// ``Engine(variant="nine", flying=True, threads=1, hash=16, skill_level=20, tables=None,
/// seed=0)``; ``search(position, depth=None, nodes=None, movetime=None)`` returns a dict with
/// ``move``, ``score`` (centipieces; table wins ``20000-P``), ``mate`` (full moves, or None),
/// ``wdl`` (permille), ``pv``, ``depth`` and ``nodes``. The GIL is released while it searches.
#[pyclass(module = "millstone._millstone", name = "Engine")]
pub struct PyEngine {
    inner: millstone::Engine,
    rules: Rules,
}

#[pymethods]
impl PyEngine {
    #[new]
    #[pyo3(signature = (variant = "nine", flying = true, threads = 1, hash = 16, skill_level = 20, tables = None, seed = 0))]
    fn new(
        variant: &str,
        flying: bool,
        threads: usize,
        hash: usize,
        skill_level: u32,
        tables: Option<&str>,
        seed: u64,
    ) -> PyResult<Self> {
        let rules = rules_of(variant, flying)?;
        let mut inner = millstone::Engine::with_hash_mb(hash);
        inner.set_threads(threads);
        inner.set_rules(rules);
        if skill_level < 20 {
            inner.set_skill(Skill::level(skill_level, seed));
        }
        if let Some(dir) = tables {
            inner
                .set_table_path(Some(dir), rules)
                .map_err(PyValueError::new_err)?;
            inner.wait_for_tables();
        }
        Ok(PyEngine { inner, rules })
    }

    /// Clears the transposition table (a new game).
    fn clear(&mut self) {
        self.inner.clear();
    }

    /// Searches the position to the limits (depth 8 when none is given; ``movetime`` in
    /// seconds) and returns the result as a dict.
    #[pyo3(signature = (position, depth = None, nodes = None, movetime = None))]
    fn search<'py>(
        &mut self,
        py: Python<'py>,
        position: &PyPosition,
        depth: Option<i32>,
        nodes: Option<u64>,
        movetime: Option<f64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        if position.core.position().rules() != self.rules {
            return Err(PyValueError::new_err(format!(
                "the position is played under {}, the engine under {}",
                position.core.position().rules(),
                self.rules
            )));
        }
        let game = game_of(position)?;
        if game.outcome().is_some() {
            return Err(PyValueError::new_err("the game is over"));
        }
        let mut limits = Limits {
            depth,
            nodes,
            ..Limits::default()
        };
        if let Some(t) = movetime {
            limits.clock.movetime = Some(Duration::from_secs_f64(t.max(0.001)));
        }
        if depth.is_none() && nodes.is_none() && movetime.is_none() {
            limits.depth = Some(8);
        }
        let engine = &mut self.inner;
        let r = py.allow_threads(move || engine.search(&game, &limits, Box::new(|_| {})));
        let d = PyDict::new_bound(py);
        d.set_item("move", r.best.map(|m| m.to_string()))?;
        d.set_item("ponder", r.ponder.map(|m| m.to_string()))?;
        match Score::from_internal(r.score) {
            Score::Cp(c) => {
                d.set_item("score", c)?;
                d.set_item("mate", py.None())?;
            }
            Score::Mate(n) => {
                d.set_item("score", r.score)?;
                d.set_item("mate", n)?;
            }
        }
        d.set_item("wdl", search::wdl(r.score))?;
        d.set_item("pv", r.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>())?;
        d.set_item("depth", r.depth)?;
        d.set_item("nodes", r.nodes)?;
        Ok(d)
    }
}

fn wdl_name(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "win",
        Wdl::CursedWin => "cursed_win",
        Wdl::Draw => "draw",
        Wdl::BlessedLoss => "blessed_loss",
        Wdl::Loss => "loss",
    }
}

fn probe_dict<'py>(py: Python<'py>, p: &Probe, exact: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    d.set_item("wdl", wdl_name(p.wdl))?;
    d.set_item("real", wdl_name(p.wdl.real()))?;
    let dist = (exact && p.wdl != Wdl::Draw).then_some(p.plies_to_mill);
    d.set_item("plies_to_mill", dist)?;
    Ok(d)
}

/// The exact tables of a directory (files of ``mill-tb generate``): moving-phase values with
/// the distance to the next mill, and placing-phase values where ``.mpt`` files exist.
#[pyclass(module = "millstone._millstone", name = "Tablebase")]
pub struct PyTablebase {
    inner: Tablebase,
}

#[pymethods]
impl PyTablebase {
    #[new]
    fn new(dir: &str) -> PyResult<Self> {
        Tablebase::open(dir)
            .map(|inner| PyTablebase { inner })
            .map_err(|e| PyValueError::new_err(format!("{dir}: {e}")))
    }

    /// How many moving-phase sub-spaces and placing sectors of the rules are present.
    #[pyo3(signature = (variant = "nine", flying = true))]
    fn count(&self, variant: &str, flying: bool) -> PyResult<(usize, usize)> {
        let r = rules_of(variant, flying)?;
        Ok((self.inner.snapshot(r).len(), self.inner.placing_count(r)))
    }

    /// The value of the position for the side to move, or None outside the tables: a dict
    /// with ``wdl`` (``"win"``, ``"cursed_win"``, ``"draw"``, ``"blessed_loss"``, ``"loss"``:
    /// a cursed win is a win that the 100-ply rule turns into a draw), ``real`` (the result
    /// under the rules: ``"win"``, ``"draw"`` or ``"loss"``) and ``plies_to_mill`` (plies to
    /// the next mill under best play in the moving phase; None for a draw or in the placing
    /// phase, whose tables hold W/D/L only).
    fn probe<'py>(
        &self,
        py: Python<'py>,
        position: &PyPosition,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let pos = *position.core.position();
        if pos.is_moving_phase() && pos.outcome().is_none() {
            let p = py.allow_threads(|| self.inner.probe(&pos));
            return p.map(|p| probe_dict(py, &p, true)).transpose();
        }
        let w = py.allow_threads(|| self.inner.wdl(&pos));
        w.map(|w| {
            let d = PyDict::new_bound(py);
            d.set_item("wdl", wdl_name(w))?;
            d.set_item("real", wdl_name(w.real()))?;
            d.set_item("plies_to_mill", py.None())?;
            Ok(d)
        })
        .transpose()
    }

    /// Every legal move's value for the side making it, best first, as ``(token, probe dict)``
    /// pairs; None when some move leads outside the tables or the game is over.
    #[allow(clippy::type_complexity)]
    fn probe_moves<'py>(
        &self,
        py: Python<'py>,
        position: &PyPosition,
    ) -> PyResult<Option<Vec<(String, Bound<'py, PyDict>)>>> {
        let pos = *position.core.position();
        let moving = pos.is_moving_phase();
        let root = py.allow_threads(|| self.inner.probe_root(&pos));
        let Some(root) = root else { return Ok(None) };
        root.moves
            .iter()
            .map(|(m, p)| Ok((m.to_string(), probe_dict(py, p, moving)?)))
            .collect::<PyResult<Vec<_>>>()
            .map(Some)
    }

    /// ``n`` positions labelled with their exact result, as numpy arrays in a dict: ``white``
    /// and ``black`` (uint32 sets, bit i = point i of ``POINTS``), ``hand_white``,
    /// ``hand_black``, ``side`` (0 White to move, 1 Black), ``result`` (int8: 1 win, 0 draw,
    /// -1 loss for the side to move), ``plies`` (uint8 plies to the next mill of a decided
    /// moving-phase position with ``distances``, else 255), ``placing`` (bool), and with
    /// ``fens`` a list ``fen`` of position strings. ``distribution`` is ``"games"``
    /// (mixed-strength games from random openings: needs every placing table of the rules),
    /// ``"uniform"`` (each table equally, uniform within it) or ``"search"`` (the positions
    /// the engine's search evaluates from roots of such games: the same tables needed). The
    /// same seed gives the same arrays, whatever the number of threads. The data ``mill-tb
    /// sample`` writes and ``mill-train`` learns from (docs/nnue.md).
    #[pyo3(signature = (n, seed = 1, distribution = "games", variant = "nine", flying = true, distances = false, fens = false))]
    #[allow(clippy::too_many_arguments)]
    fn sample<'py>(
        &self,
        py: Python<'py>,
        n: usize,
        seed: u64,
        distribution: &str,
        variant: &str,
        flying: bool,
        distances: bool,
        fens: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        use millstone::tablebase::sample::{self, Distribution, SampleOptions};
        use numpy::PyArray1;
        let rules = rules_of(variant, flying)?;
        let distribution: Distribution = distribution.parse().map_err(PyValueError::new_err)?;
        if distribution.plays_games() && !self.inner.covers_placing_phase(rules) {
            return Err(PyValueError::new_err(format!(
                "sampling games needs every placing table of {rules} (mill-tb setup makes them)"
            )));
        }
        let opts = SampleOptions {
            rules,
            distribution,
            seed,
            distances,
            phase: sample::Phase::Any,
        };
        let samples = py
            .allow_threads(|| sample::sample(&self.inner, n, &opts))
            .map_err(PyValueError::new_err)?;
        let d = PyDict::new_bound(py);
        let col = |f: &dyn Fn(&sample::Sample) -> u8| samples.iter().map(f).collect::<Vec<u8>>();
        d.set_item(
            "white",
            PyArray1::from_vec_bound(py, samples.iter().map(|s| s.white).collect()),
        )?;
        d.set_item(
            "black",
            PyArray1::from_vec_bound(py, samples.iter().map(|s| s.black).collect()),
        )?;
        d.set_item(
            "hand_white",
            PyArray1::from_vec_bound(py, col(&|s| s.hand[0])),
        )?;
        d.set_item(
            "hand_black",
            PyArray1::from_vec_bound(py, col(&|s| s.hand[1])),
        )?;
        d.set_item(
            "side",
            PyArray1::from_vec_bound(py, col(&|s| s.side.index() as u8)),
        )?;
        d.set_item(
            "result",
            PyArray1::from_vec_bound(py, samples.iter().map(|s| s.result).collect()),
        )?;
        d.set_item("plies", PyArray1::from_vec_bound(py, col(&|s| s.plies)))?;
        d.set_item(
            "placing",
            PyArray1::from_vec_bound(py, samples.iter().map(|s| s.is_placing()).collect()),
        )?;
        if fens {
            let list: Vec<String> = samples.iter().map(|s| s.position().to_fen()).collect();
            d.set_item("fen", list)?;
        }
        Ok(d)
    }

    /// The best move by the tables (fastest win, else a draw, else the slowest loss), or None.
    fn best_move(&self, py: Python<'_>, position: &PyPosition) -> Option<String> {
        let pos = *position.core.position();
        py.allow_threads(|| self.inner.probe_root(&pos))
            .map(|r| r.best.to_string())
    }
}
