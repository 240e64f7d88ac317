//! `millstone.Position`: a game from a start position, with history and our draw rules.

use crate::core::{Core, OBS_LEN, OBS_PLANES};
use crate::encoding::{NUM_FULL, NUM_TWO_STEP};
use millstone::{perft, Color, Move, Position, Rules, Variant};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Parses the variant name and flying flag into rules.
pub fn rules_of(variant: &str, flying: bool) -> PyResult<Rules> {
    let v: Variant = variant
        .parse()
        .map_err(|e: millstone::types::ParseVariantError| PyValueError::new_err(e.to_string()))?;
    Ok(Rules::new(v, flying))
}

pub fn parse_color(c: &str) -> PyResult<Color> {
    match c {
        "w" | "W" | "white" => Ok(Color::White),
        "b" | "B" | "black" => Ok(Color::Black),
        _ => Err(PyValueError::new_err(format!(
            "color {c:?}: expected \"w\" or \"b\""
        ))),
    }
}

pub fn parse_move(token: &str) -> PyResult<Move> {
    token
        .parse()
        .map_err(|e: millstone::ParseMoveError| PyValueError::new_err(format!("{token:?}: {e}")))
}

/// A game of mill from a start position: the current position, the moves played, the legal
/// moves and the end of the game under Millstone's rules (threefold repetition and the 100-ply
/// rule included).
///
/// ``Position(variant="nine", flying=True)`` starts a game; ``Position.from_fen`` starts one
/// from a position string.
#[pyclass(module = "millstone._millstone", name = "Position")]
#[derive(Clone)]
pub struct PyPosition {
    pub core: Core,
}

#[pymethods]
impl PyPosition {
    #[new]
    #[pyo3(signature = (variant = "nine", flying = true))]
    fn new(variant: &str, flying: bool) -> PyResult<Self> {
        Ok(PyPosition {
            core: Core::new(Position::new(rules_of(variant, flying)?)),
        })
    }

    /// A game starting from the position string ``fen`` (six fields, see RULES.md).
    #[staticmethod]
    #[pyo3(signature = (fen, variant = "nine", flying = true))]
    fn from_fen(fen: &str, variant: &str, flying: bool) -> PyResult<Self> {
        let pos = Position::from_fen(fen, rules_of(variant, flying)?)
            .map_err(|e| PyValueError::new_err(format!("{fen:?}: {e}")))?;
        Ok(PyPosition {
            core: Core::new(pos),
        })
    }

    /// The current position string.
    fn fen(&self) -> String {
        self.core.position().to_fen()
    }

    /// The position string the game started from.
    fn start_fen(&self) -> String {
        self.core.start().to_fen()
    }

    /// ``"nine"`` or ``"twelve"``.
    #[getter]
    fn variant(&self) -> &'static str {
        self.core.position().variant().name()
    }

    /// Whether a side with three pieces may fly.
    #[getter]
    fn flying(&self) -> bool {
        self.core.position().rules().flying
    }

    /// ``"w"`` or ``"b"``: whose turn it is.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        side_str(self.core.to_move())
    }

    /// 0 for White, 1 for Black: whose turn it is.
    #[getter]
    fn current_player(&self) -> usize {
        self.core.to_move().index()
    }

    /// Plies of the moving phase since the last mill (the 100-ply counter).
    #[getter]
    fn rule50(&self) -> u16 {
        self.core.position().rule50()
    }

    /// The full-move number.
    #[getter]
    fn fullmove(&self) -> u32 {
        self.core.position().fullmove()
    }

    /// Number of moves played since the start position.
    #[getter]
    fn ply(&self) -> usize {
        self.core.moves().len()
    }

    /// Whether both hands are empty.
    #[getter]
    fn is_moving_phase(&self) -> bool {
        self.core.position().is_moving_phase()
    }

    /// Pieces in hand of ``color`` (``"w"`` or ``"b"``).
    fn in_hand(&self, color: &str) -> PyResult<u8> {
        Ok(self.core.position().in_hand(parse_color(color)?))
    }

    /// ``(white, black)`` pieces in hand.
    fn hands(&self) -> (u8, u8) {
        let p = self.core.position();
        (p.in_hand(Color::White), p.in_hand(Color::Black))
    }

    /// ``(white, black)`` pieces on the board.
    fn on_board(&self) -> (u32, u32) {
        let p = self.core.position();
        (
            p.pieces(Color::White).count(),
            p.pieces(Color::Black).count(),
        )
    }

    /// The piece on a point (``"a1"`` ... ``"g7"``): ``"w"``, ``"b"`` or None.
    fn piece_at(&self, point: &str) -> PyResult<Option<&'static str>> {
        let p: millstone::Point = point
            .parse()
            .map_err(|e: millstone::types::ParsePointError| PyValueError::new_err(e.to_string()))?;
        Ok(self.core.position().piece_at(p).map(side_str))
    }

    /// The 24 points in index order (a1, d1, g1, b2, ... g7): ``"W"``, ``"B"`` or ``"."``.
    fn board(&self) -> Vec<&'static str> {
        let p = self.core.position();
        millstone::Point::all()
            .map(|q| match p.piece_at(q) {
                Some(Color::White) => "W",
                Some(Color::Black) => "B",
                None => ".",
            })
            .collect()
    }

    /// The complete lines of ``color`` (default: both sides), each as three point names.
    #[pyo3(signature = (color = None))]
    fn mills(&self, color: Option<&str>) -> PyResult<Vec<(String, String, String)>> {
        let p = self.core.position();
        let topo = p.topology();
        let colors = match color {
            Some(c) => vec![parse_color(c)?],
            None => vec![Color::White, Color::Black],
        };
        let mut out = Vec::new();
        for c in colors {
            let own = p.pieces(c).0;
            for (i, &line) in topo.lines().iter().enumerate() {
                if own & line == line {
                    let [a, b, d] = topo.line_points[i];
                    let n = |x: u8| millstone::Point::from_index(x as usize).name().to_string();
                    out.push((n(a), n(b), n(d)));
                }
            }
        }
        Ok(out)
    }

    /// The legal moves as tokens (``"d6"``, ``"d6-d5"``, ``"d6xa1"``): one per removal choice.
    /// Empty once the game has ended.
    fn legal_moves(&self) -> Vec<String> {
        if self.core.pending().is_some() {
            return Vec::new();
        }
        self.core.legal().iter().map(|m| m.to_string()).collect()
    }

    /// Plays a move given as a token; raises ValueError if it is illegal or the game is over.
    fn play(&mut self, token: &str) -> PyResult<()> {
        let m = parse_move(token)?;
        self.core.play(m).map_err(PyValueError::new_err)
    }

    /// Takes back the last move (or a pending two-step move) and returns its token; raises
    /// IndexError at the start.
    fn undo(&mut self) -> PyResult<String> {
        self.core
            .undo()
            .map(|m| m.to_string())
            .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("no move to take back"))
    }

    /// The moves played, as tokens.
    fn moves(&self) -> Vec<String> {
        self.core.moves().iter().map(|m| m.to_string()).collect()
    }

    /// None while the game goes on, else ``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``.
    fn outcome(&self) -> Option<&'static str> {
        self.core.outcome().map(|o| o.result_str())
    }

    /// Why the game ended: ``"material"``, ``"blocked"``, ``"fullboard"``, ``"threefold"``,
    /// ``"hundredply"``; None while it goes on.
    fn reason(&self) -> Option<&'static str> {
        self.core.outcome().map(|o| o.reason().name())
    }

    /// Whether the game has ended.
    fn is_over(&self) -> bool {
        self.core.outcome().is_some()
    }

    /// The number of move sequences of ``depth`` plies from here (RULES.md's perft: every
    /// removal choice a move, no draw rules).
    fn perft(&self, py: Python<'_>, depth: u32) -> u64 {
        let mut pos = *self.core.position();
        py.allow_threads(move || perft::perft(&mut pos, depth))
    }

    /// The legal action ids: complete-move ids (default) or two-step ids.
    #[pyo3(signature = (two_step = false))]
    fn legal_actions(&self, two_step: bool) -> Vec<usize> {
        let mut v = Vec::new();
        if two_step {
            self.core.legal_two_step_ids(&mut v);
        } else {
            self.core.legal_full_ids(&mut v);
        }
        v
    }

    /// A boolean mask over all action ids (15000 complete-move ids, or 600 two-step ids).
    #[pyo3(signature = (two_step = false))]
    fn legal_action_mask<'py>(
        &self,
        py: Python<'py>,
        two_step: bool,
    ) -> Bound<'py, PyArray1<bool>> {
        let n = if two_step { NUM_TWO_STEP } else { NUM_FULL };
        let mut mask = vec![false; n];
        for a in self.legal_actions(two_step) {
            mask[a] = true;
        }
        PyArray1::from_vec_bound(py, mask)
    }

    /// Applies an action id: complete-move (default) or two-step. In the two-step form a
    /// mill-closing move waits for its removal (``pending_removal``), which is the same
    /// player's next action.
    #[pyo3(signature = (action, two_step = false))]
    fn apply_action(&mut self, action: usize, two_step: bool) -> PyResult<()> {
        if two_step {
            self.core
                .apply_two_step(action)
                .map(|_| ())
                .map_err(PyValueError::new_err)
        } else {
            self.core.apply_full(action).map_err(PyValueError::new_err)
        }
    }

    /// Two-step form: the move (without removal) waiting for its removal, else None.
    #[getter]
    fn pending_removal(&self) -> Option<String> {
        self.core.pending().map(|m| m.to_string())
    }

    /// The observation planes from the side to move's view, shape ``(8, 24)`` float32 (see
    /// ``OBSERVATION_PLANES``).
    fn observation<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        let mut v = vec![0f32; OBS_LEN];
        self.core.observe(&mut v);
        PyArray1::from_vec_bound(py, v)
            .reshape([OBS_PLANES, 24])
            .expect("the observation's shape")
    }

    /// An independent copy.
    fn copy(&self) -> Self {
        self.clone()
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    /// The board as text.
    fn diagram(&self) -> String {
        self.core.position().diagram()
    }

    fn __str__(&self) -> String {
        self.core.position().diagram()
    }

    fn __repr__(&self) -> String {
        let r = self.core.position().rules();
        format!(
            "Position({:?}, variant={:?}, flying={})",
            self.core.position().to_fen(),
            r.variant.name(),
            if r.flying { "True" } else { "False" }
        )
    }
}

pub fn side_str(c: Color) -> &'static str {
    match c {
        Color::White => "w",
        Color::Black => "b",
    }
}
