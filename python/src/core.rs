//! A game with its history and our draw rules, shared by `Position` and `VectorEnv`: legal moves
//! kept up to date after every move, the end of the game checked exactly as `millstone::Game`
//! does (material, blockade, full board, then the 100-ply rule and threefold repetition), and
//! the pending removal of the two-step action form.

use crate::encoding::{base_id, base_move, full_id, full_move, NUM_TWO_STEP};
use millstone::position::HUNDRED_PLIES;
use millstone::{movegen, Color, EndReason, Move, MoveList, Outcome, Point, Position};

/// Planes of an observation (see `docs/python.md`).
pub const OBS_PLANES: usize = 8;
/// Floats in one observation.
pub const OBS_LEN: usize = OBS_PLANES * 24;

/// A game in progress or ended.
#[derive(Clone)]
pub struct Core {
    start: Position,
    pos: Position,
    /// Positions before each move played, for undo.
    history: Vec<Position>,
    moves: Vec<Move>,
    /// Repetition keys of every position, the current one last.
    keys: Vec<u64>,
    /// Two-step form: the base of a mill-closing move that waits for its removal.
    pending: Option<Move>,
    legal: MoveList,
    outcome: Option<Outcome>,
    /// Batched games keep no positions for undo and only the repetition keys since the last
    /// placement or mill (no earlier position can recur).
    light: bool,
}

impl Core {
    /// A game from `start`.
    pub fn new(start: Position) -> Core {
        let mut c = Core {
            start,
            pos: start,
            history: Vec::new(),
            moves: Vec::new(),
            keys: vec![start.repetition_key()],
            pending: None,
            legal: MoveList::new(),
            outcome: None,
            light: false,
        };
        c.refresh();
        c
    }

    /// A game that cannot be taken back (see `light`), for `VectorEnv`.
    pub fn new_light(start: Position) -> Core {
        let mut c = Core::new(start);
        c.light = true;
        c
    }

    /// A full game (undo possible) with the same moves: replays them from the start.
    pub fn with_history(&self) -> Core {
        let mut c = Core::new(self.start);
        for &m in &self.moves {
            c.play_legal(m);
        }
        c.pending = self.pending;
        c
    }

    /// Back to the start position.
    pub fn reset(&mut self) {
        self.pos = self.start;
        self.history.clear();
        self.moves.clear();
        self.keys.clear();
        self.keys.push(self.pos.repetition_key());
        self.pending = None;
        self.refresh();
    }

    fn repetitions(&self) -> usize {
        let n = self.keys.len() - 1;
        let cur = self.keys[n];
        let back = (self.pos.rule50() as usize).min(n);
        self.keys[n - back..].iter().filter(|&&k| k == cur).count()
    }

    fn refresh(&mut self) {
        self.legal.clear();
        movegen::generate(&self.pos, &mut self.legal);
        self.outcome = if self.legal.is_empty() {
            Some(self.pos.outcome().unwrap_or(Outcome::Win {
                winner: self.pos.side_to_move().other(),
                reason: EndReason::Blocked,
            }))
        } else if self.pos.rule50() >= HUNDRED_PLIES {
            Some(Outcome::Draw {
                reason: EndReason::HundredPlies,
            })
        } else if self.repetitions() >= 3 {
            Some(Outcome::Draw {
                reason: EndReason::Threefold,
            })
        } else {
            None
        };
        if self.outcome.is_some() {
            self.legal.clear();
        }
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The legal complete moves; empty once the game has ended.
    pub fn legal(&self) -> &[Move] {
        self.legal.as_slice()
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    pub fn pending(&self) -> Option<Move> {
        self.pending
    }

    /// Plays a complete move known to be legal (one of [`Core::legal`]).
    pub fn play_legal(&mut self, m: Move) {
        if !self.light {
            self.history.push(self.pos);
        }
        self.pos.make(m);
        self.moves.push(m);
        if self.light && self.pos.rule50() == 0 {
            self.keys.clear();
        }
        self.keys.push(self.pos.repetition_key());
        self.pending = None;
        self.refresh();
    }

    /// Plays a complete move after checking it.
    pub fn play(&mut self, m: Move) -> Result<(), String> {
        if let Some(o) = self.outcome {
            return Err(format!("the game is over ({})", o.result_str()));
        }
        if self.pending.is_some() {
            return Err("a removal is pending (two-step form): apply it or undo first".into());
        }
        if !self.legal.contains(m) {
            let why = self
                .pos
                .check(m)
                .err()
                .map_or_else(|| "it is not legal here".to_string(), |e| e.to_string());
            return Err(format!("illegal move {m}: {why}"));
        }
        self.play_legal(m);
        Ok(())
    }

    /// Takes back the last move (or a pending base move); the move taken back. A light game
    /// takes back only a pending base move.
    pub fn undo(&mut self) -> Option<Move> {
        if let Some(p) = self.pending.take() {
            return Some(p);
        }
        if self.light {
            return None;
        }
        let m = self.moves.pop()?;
        self.pos = self.history.pop().expect("a position per move");
        self.keys.pop();
        self.refresh();
        Some(m)
    }

    /// The legal complete-move ids, in the move generator's order.
    pub fn legal_full_ids(&self, out: &mut Vec<usize>) {
        if self.pending.is_some() {
            return;
        }
        out.extend(self.legal.iter().map(|&m| full_id(m)));
    }

    /// The legal two-step ids: removals while one is pending, else the bases, ascending.
    pub fn legal_two_step_ids(&self, out: &mut Vec<usize>) {
        if let Some(p) = self.pending {
            let mut r: Vec<usize> = self
                .legal
                .iter()
                .filter(|m| m.without_removal() == p)
                .filter_map(|m| m.removal().map(|r| r.index()))
                .collect();
            r.sort_unstable();
            out.extend(r);
            return;
        }
        let mut seen = [false; NUM_TWO_STEP];
        for &m in self.legal.iter() {
            seen[base_id(m)] = true;
        }
        out.extend((0..NUM_TWO_STEP).filter(|&i| seen[i]));
    }

    /// Applies a complete-move id.
    pub fn apply_full(&mut self, id: usize) -> Result<(), String> {
        let m = full_move(id).ok_or_else(|| format!("action {id} is no move"))?;
        self.play(m)
    }

    /// Applies a two-step id; `Ok(true)` when a move was completed, `Ok(false)` when it now
    /// waits for its removal.
    pub fn apply_two_step(&mut self, id: usize) -> Result<bool, String> {
        if let Some(o) = self.outcome {
            return Err(format!("the game is over ({})", o.result_str()));
        }
        if let Some(p) = self.pending {
            let r = Point::new(id).ok_or_else(|| format!("action {id} is no removal"))?;
            let m = p.with_removal(r);
            if !self.legal.contains(m) {
                return Err(format!("illegal removal {r} after {p}"));
            }
            self.play_legal(m);
            return Ok(true);
        }
        let b = base_move(id).ok_or_else(|| format!("action {id} is no move"))?;
        if self.legal.contains(b) {
            self.play_legal(b);
            return Ok(true);
        }
        if self.legal.iter().any(|m| m.without_removal() == b) {
            self.pending = Some(b);
            return Ok(false);
        }
        Err(format!("illegal move {b} (action {id})"))
    }

    /// The side whose turn it is (also while its removal is pending).
    pub fn to_move(&self) -> Color {
        self.pos.side_to_move()
    }

    /// Writes the observation from the side to move's view (`OBS_LEN` floats).
    pub fn observe(&self, out: &mut [f32]) {
        let pos = &self.pos;
        let us = pos.side_to_move();
        let them = us.other();
        let n = pos.variant().pieces() as f32;
        let own = pos.pieces(us).0;
        let opp = pos.pieces(them).0;
        let (out, _) = out.split_at_mut(OBS_LEN);
        for i in 0..24 {
            let bit = 1u32 << i;
            out[i] = (own & bit != 0) as u32 as f32;
            out[24 + i] = (opp & bit != 0) as u32 as f32;
            out[48 + i] = ((own | opp) & bit == 0) as u32 as f32;
        }
        out[72..96].fill(pos.in_hand(us) as f32 / n);
        out[96..120].fill(pos.in_hand(them) as f32 / n);
        out[120..144].fill(pos.rule50().min(HUNDRED_PLIES) as f32 / HUNDRED_PLIES as f32);
        out[144..192].fill(0.0);
        if let Some(p) = self.pending {
            out[144 + p.to().index()] = 1.0;
            if let Some(f) = p.from() {
                out[168 + f.index()] = 1.0;
            }
        }
    }
}
