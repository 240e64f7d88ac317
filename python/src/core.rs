//! A game with its history and our draw rules, shared by `Position` and `VectorEnv`: the legal
//! moves listed when first asked for after a move (the random players and the legality checks
//! of `VectorEnv` need no list), the end of the game checked after every move exactly as
//! `millstone::Game` does (material, blockade, full board, then the 100-ply rule and threefold repetition), and
//! the pending removal of the two-step action form.

use crate::encoding::{base_id, base_move, full_id, full_move, NUM_TWO_STEP};
use millstone::position::HUNDRED_PLIES;
use millstone::{movegen, Color, EndReason, Move, MoveList, Outcome, Point, Position};
use std::cell::OnceCell;

/// Planes of an observation (see `docs/python.md`).
pub const OBS_PLANES: usize = 8;
/// Floats in one observation.
pub const OBS_LEN: usize = OBS_PLANES * 24;

/// The eight floats (1.0 or 0.0) of each byte's bits, lowest bit first.
static BYTE_PLANES: [[f32; 8]; 256] = {
    let mut t = [[0f32; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            if b & (1 << i) != 0 {
                t[b][i] = 1.0;
            }
            i += 1;
        }
        b += 1;
    }
    t
};

/// Writes the low 24 bits of `bits` as 24 floats, 1.0 where a bit is set.
#[inline]
fn spread(bits: u32, out: &mut [f32]) {
    for (byte, o) in out[..24].chunks_exact_mut(8).enumerate() {
        o.copy_from_slice(&BYTE_PLANES[(bits >> (8 * byte)) as usize & 0xff]);
    }
}

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
    /// A filter of the keys since the last placement or mill: a bit per key, at `seen_bit`. A
    /// position whose bit is clear cannot be a repetition, so most moves read no earlier key.
    seen: u128,
    /// Two-step form: the base of a mill-closing move that waits for its removal.
    pending: Option<Move>,
    /// The legal moves, generated on first use after each move (empty once the game is over);
    /// boxed, so that a game stays small (a batch's games stay in the cache).
    legal: OnceCell<Box<MoveList>>,
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
            seen: 0,
            pending: None,
            legal: OnceCell::new(),
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
        self.seen = 0;
        self.pending = None;
        self.refresh();
    }

    /// The filter bit of a key.
    fn seen_bit(key: u64) -> u128 {
        1 << (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 57)
    }

    /// How often the current position has occurred (since the last placement or mill).
    fn repetitions(&mut self) -> usize {
        let n = self.keys.len() - 1;
        let cur = self.keys[n];
        if self.pos.rule50() == 0 {
            self.seen = 0;
        }
        let bit = Core::seen_bit(cur);
        let maybe = self.seen & bit != 0;
        self.seen |= bit;
        if !maybe {
            return 1;
        }
        let back = (self.pos.rule50() as usize).min(n);
        // The same side is to move only an even number of plies back, and not two plies back:
        // its own move since then has changed its pieces.
        1 + (4..=back)
            .step_by(2)
            .filter(|&d| self.keys[n - d] == cur)
            .count()
    }

    fn refresh(&mut self) {
        self.legal.take();
        // No legal move exactly when `has_legal_move` says so (material lost or blocked; see
        // the property tests), so the list need not be built to end the game.
        self.outcome = if !movegen::has_legal_move(&self.pos) {
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
        self.legal
            .get_or_init(|| {
                let mut l = Box::new(MoveList::new());
                if self.outcome.is_none() {
                    movegen::generate(&self.pos, &mut l);
                }
                l
            })
            .as_slice()
    }

    /// Whether `m` is one of [`Core::legal`] (checked by the rules, without the list).
    pub fn is_legal(&self, m: Move) -> bool {
        if self.outcome.is_some() {
            return false;
        }
        match self.legal.get() {
            Some(l) => l.contains(m),
            None => self.pos.check(m).is_ok(),
        }
    }

    /// The move of [`Core::legal`] at index `index(n)` of the `n` legal moves (a game in
    /// progress; `index` returns less than `n`), found without building the list when it is not
    /// built yet.
    pub fn choose_legal(&self, index: impl FnOnce(usize) -> usize) -> Move {
        match self.legal.get() {
            Some(l) => l.as_slice()[index(l.len())],
            None => movegen::choose(&self.pos, |n| index(n as usize) as u64)
                .expect("a game in progress has a move"),
        }
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
        if !self.is_legal(m) {
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
        // The filter may now miss keys from before a mill taken back: check every key until
        // the next placement or mill.
        self.seen = !0;
        self.refresh();
        Some(m)
    }

    /// The legal complete-move ids, in the move generator's order.
    pub fn legal_full_ids(&self, out: &mut Vec<usize>) {
        if self.pending.is_some() {
            return;
        }
        out.extend(self.legal().iter().map(|&m| full_id(m)));
    }

    /// The legal two-step ids: removals while one is pending, else the bases, ascending.
    pub fn legal_two_step_ids(&self, out: &mut Vec<usize>) {
        if let Some(p) = self.pending {
            let mut r: Vec<usize> = self
                .legal()
                .iter()
                .filter(|m| m.without_removal() == p)
                .filter_map(|m| m.removal().map(|r| r.index()))
                .collect();
            r.sort_unstable();
            out.extend(r);
            return;
        }
        let mut seen = [false; NUM_TWO_STEP];
        for &m in self.legal().iter() {
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
            if !self.is_legal(m) {
                return Err(format!("illegal removal {r} after {p}"));
            }
            self.play_legal(m);
            return Ok(true);
        }
        let b = base_move(id).ok_or_else(|| format!("action {id} is no move"))?;
        if self.is_legal(b) {
            self.play_legal(b);
            return Ok(true);
        }
        if self.legal().iter().any(|m| m.without_removal() == b) {
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
        spread(own, &mut out[0..24]);
        spread(opp, &mut out[24..48]);
        spread(!(own | opp), &mut out[48..72]);
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
