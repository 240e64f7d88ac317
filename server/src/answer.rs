//! A position's answer and a sector's statistics, built from the library's [`Tablebase`] alone:
//! the server adds no game knowledge of its own, so what it says is what `probe_root`, `probe`
//! and `wdl` say (the agreement test holds it to that).

use millstone::position::HUNDRED_PLIES;
use millstone::tablebase::placing::{sector_of, Sector};
use millstone::tablebase::{Probe, Tablebase, Value, Wdl, DIGIT_LOSS, DIGIT_OTHER, DIGIT_WIN};
use millstone::{Color, Move, Position, Rules};
use serde::Serialize;

/// The main line stops after this many plies even without a mill: each ply costs a probe of
/// the moves until the best one, and a draw may never reach a mill at all.
pub const MAINLINE_CAP: usize = 32;

/// The longest distance a result keeps under the 100-ply rule: a stored distance above it
/// marks a result the rule spoils, whose digit is "other" (the library's `digit_of`).
const LIMIT: u16 = HUNDRED_PLIES;

/// A result as the API names it, for the side to move (of the position, or of the move's
/// maker for a move).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Wins under the rules.
    Win,
    /// Neither side can force a win.
    Draw,
    /// Loses under the rules.
    Loss,
    /// Would win, but the 100-ply rule makes it a draw with best defence.
    CursedWin,
    /// Would lose, but the 100-ply rule saves it: a draw.
    BlessedLoss,
    /// No table covers it.
    Unknown,
}

impl From<Wdl> for Category {
    fn from(w: Wdl) -> Category {
        match w {
            Wdl::Win => Category::Win,
            Wdl::Draw => Category::Draw,
            Wdl::Loss => Category::Loss,
            Wdl::CursedWin => Category::CursedWin,
            Wdl::BlessedLoss => Category::BlessedLoss,
        }
    }
}

/// The plies to the next mill that the API reports: exact for a win or loss of the moving
/// phase, nothing otherwise (a cursed win's stored distance is only an ordering key, and the
/// placing tables store none).
fn plies_of(p: &Probe, moving: bool) -> Option<u16> {
    (moving && matches!(p.wdl, Wdl::Win | Wdl::Loss)).then_some(p.plies_to_mill)
}

/// One legal move and what it leads to.
#[derive(Clone, Debug, Serialize)]
pub struct MoveAnswer {
    /// The move in the protocol's notation (`d6`, `a1-a4`, `b2-d7xg1`).
    #[serde(rename = "move")]
    pub mv: String,
    /// The result for the side making it.
    pub category: Category,
    /// Plies to the next mill, for a win or loss of the moving phase.
    pub plies: Option<u16>,
    /// The position string after it.
    pub fen: String,
}

/// How the game ended, when the rules end it in this position.
#[derive(Clone, Debug, Serialize)]
pub struct GameOver {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// Why (`material`, `blocked`, `full board`).
    pub reason: String,
}

/// Everything the API says about a position.
#[derive(Clone, Debug, Serialize)]
pub struct Answer {
    /// The position string, as the library writes it back.
    pub fen: String,
    /// `nine` or `twelve`.
    pub variant: &'static str,
    /// Whether flying is on.
    pub flying: bool,
    /// `white` or `black`.
    pub side_to_move: &'static str,
    /// `placing` or `moving`.
    pub phase: &'static str,
    /// The result for the side to move.
    pub category: Category,
    /// Plies to the next mill under best play, for a win or loss of the moving phase.
    pub plies: Option<u16>,
    /// Set when the rules already ended the game here.
    pub game_over: Option<GameOver>,
    /// Every legal move, best first.
    pub moves: Vec<MoveAnswer>,
    /// Best play from here until a mill closes or the game ends, at most [`MAINLINE_CAP`]
    /// plies; empty where the tables do not cover every move on the way.
    pub mainline: Vec<String>,
}

impl Answer {
    /// Whether any part of it is [`Category::Unknown`].
    pub fn has_unknown(&self) -> bool {
        self.category == Category::Unknown
            || self.moves.iter().any(|m| m.category == Category::Unknown)
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The value of one move for its maker, without `probe_root` (used only where some move
/// leads outside the tables, so `probe_root` gives nothing): the same arithmetic as the
/// library's root probe.
fn move_value(tb: &Tablebase, pos: &Position, m: Move, child: &Position) -> Option<Probe> {
    if pos.is_moving_phase() {
        let cv = tb.value(child)?;
        let v = if m.removal().is_some() {
            Value::after_mill(cv)
        } else {
            cv.parent()
        };
        Some(Probe::from_value(v, pos.rule50()))
    } else {
        let w = tb.wdl(child)?.flip();
        let value = match w {
            Wdl::Win => Value::Win(0),
            Wdl::Loss => Value::Loss(0),
            _ => Value::Draw,
        };
        Some(Probe {
            wdl: w,
            plies_to_mill: 0,
            value,
        })
    }
}

/// The position's own result: the rules' end first, then the tables of its phase.
fn own_probe(tb: &Tablebase, pos: &Position) -> Option<(Category, Option<u16>)> {
    if pos.is_moving_phase() && pos.outcome().is_none() {
        let p = tb.probe(pos)?;
        Some((p.wdl.into(), plies_of(&p, true)))
    } else {
        tb.wdl(pos).map(|w| (w.into(), None))
    }
}

/// The W/D/L digit of a moving-phase position (one byte of the mapped file, no distance
/// block decoded); `None` where the rules or a missing table decide instead.
fn digit(tb: &Tablebase, pos: &Position) -> Option<u8> {
    if !pos.is_moving_phase() || pos.outcome().is_some() {
        return None;
    }
    let us = pos.side_to_move();
    let (own, opp) = (pos.pieces(us), pos.pieces(us.other()));
    let t = tb.table(pos.rules(), own.count() as u8, opp.count() as u8)?;
    Some(t.digit(t.index().index(own.0, opp.0)))
}

/// The digit a move's child must have for the move to keep the value `v` (see
/// [`Value::parent`] and [`Value::after_mill`]: a win within 100 plies comes only from a
/// child lost within 100, and so on); `None` where any child might (a result the 100-ply
/// rule spoils).
fn digit_needed(v: Value) -> Option<u8> {
    match v {
        Value::Win(d) if d <= LIMIT => Some(DIGIT_LOSS),
        Value::Loss(d) if d <= LIMIT => Some(DIGIT_WIN),
        Value::Draw => Some(DIGIT_OTHER),
        _ => None,
    }
}

/// What the best move of a position must match: a moving-phase position's stored value
/// (distances included), a placing position's W/D/L.
#[derive(Copy, Clone, Debug)]
enum Target {
    Value(Value),
    Wdl(Wdl),
}

fn target_of(tb: &Tablebase, pos: &Position) -> Option<Target> {
    if pos.is_moving_phase() {
        tb.value(pos).map(Target::Value)
    } else {
        tb.wdl(pos).map(Target::Wdl)
    }
}

/// The best move of `pos` (whose value is `target`) as [`Tablebase::probe_root`] picks it:
/// the first move in the generator's order whose value equals the position's (the root probe
/// sorts stably by value, and the position's value is its best move's). It stops at that
/// move instead of valuing them all, and skips by the children's W/D/L digits the moves that
/// cannot keep the value, so most children cost no distance block. Returns the move and, when
/// known on the way, the target of the position after it (saving the next step a probe);
/// where no move matches it asks `probe_root` itself.
fn best_move(tb: &Tablebase, pos: &Position, target: Target) -> Option<(Move, Option<Target>)> {
    let needed = match target {
        Target::Value(v) => digit_needed(v),
        Target::Wdl(_) => None,
    };
    for &m in pos.legal_moves().iter() {
        let mut child = *pos;
        child.make(m);
        if let (Some(need), Some(d)) = (needed, digit(tb, &child)) {
            if d != need {
                continue;
            }
        }
        // The same arithmetic as the library's root probe (see `move_value`).
        match target {
            Target::Value(v) => {
                let cv = tb.value(&child)?;
                let mine = if m.removal().is_some() {
                    Value::after_mill(cv)
                } else {
                    cv.parent()
                };
                if mine == v {
                    return Some((m, Some(Target::Value(cv))));
                }
            }
            Target::Wdl(w) => {
                let cw = tb.wdl(&child)?;
                if cw.flip() == w {
                    // After the last placement the next step needs the stored value instead.
                    let next = (!child.is_moving_phase()).then_some(Target::Wdl(cw));
                    return Some((m, next));
                }
            }
        }
    }
    tb.probe_root(pos).map(|r| (r.best, None))
}

/// Best play from `pos` (whose best move is `first`) until a mill, the game's end or the cap.
fn mainline(tb: &Tablebase, pos: &Position, first: Move) -> Vec<String> {
    let mut line = Vec::new();
    let mut p = *pos;
    let (mut m, mut target) = (first, None);
    loop {
        line.push(m.to_string());
        p.make(m);
        if m.removal().is_some() || line.len() >= MAINLINE_CAP || p.outcome().is_some() {
            break;
        }
        let Some(t) = target.or_else(|| target_of(tb, &p)) else {
            break;
        };
        match best_move(tb, &p, t) {
            Some((next, next_target)) => (m, target) = (next, next_target),
            None => break,
        }
    }
    line
}

/// The answer for a position (already parsed and checked by the library).
pub fn position(tb: &Tablebase, pos: &Position) -> Answer {
    let rules = pos.rules();
    let moving = pos.is_moving_phase();
    let outcome = pos.outcome();
    let (category, plies) = own_probe(tb, pos).unwrap_or((Category::Unknown, None));
    let mut moves = Vec::new();
    let mut line = Vec::new();
    if outcome.is_none() {
        let child_fen = |m: Move| {
            let mut c = *pos;
            c.make(m);
            c.to_fen()
        };
        if let Some(root) = tb.probe_root(pos) {
            moves = root
                .moves
                .iter()
                .map(|(m, p)| MoveAnswer {
                    mv: m.to_string(),
                    category: p.wdl.into(),
                    plies: plies_of(p, moving),
                    fen: child_fen(*m),
                })
                .collect();
            line = mainline(tb, pos, root.best);
        } else {
            // Some move leads outside the tables: value each move on its own, known ones
            // best first in the library's order, unknown ones after them.
            let mut valued: Vec<(Move, Option<Probe>)> = pos
                .legal_moves()
                .iter()
                .map(|&m| {
                    let mut c = *pos;
                    c.make(m);
                    (m, move_value(tb, pos, m, &c))
                })
                .collect();
            valued.sort_by_key(|&(_, p)| {
                std::cmp::Reverse(p.map(|p| if moving { p.value.key() } else { p.wdl as i32 }))
            });
            moves = valued
                .into_iter()
                .map(|(m, p)| MoveAnswer {
                    mv: m.to_string(),
                    category: p.map_or(Category::Unknown, |p| p.wdl.into()),
                    plies: p.and_then(|p| plies_of(&p, moving)),
                    fen: child_fen(m),
                })
                .collect();
        }
    }
    Answer {
        fen: pos.to_fen(),
        variant: rules.variant.name(),
        flying: rules.flying,
        side_to_move: color_name(pos.side_to_move()),
        phase: if moving { "moving" } else { "placing" },
        category,
        plies,
        game_over: outcome.map(|o| GameOver {
            result: o.result_str(),
            reason: o.reason().to_string(),
        }),
        moves,
        mainline: line,
    }
}

/// Which table a sector request names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SectorKey {
    /// The moving phase's sub-space: pieces of the side to move, of the other side.
    Moving(u8, u8),
    /// A placing-phase sector.
    Placing(Sector),
}

/// The sector of a position.
pub fn sector_key_of(pos: &Position) -> Option<SectorKey> {
    if pos.is_moving_phase() {
        let us = pos.side_to_move();
        Some(SectorKey::Moving(
            pos.pieces(us).count() as u8,
            pos.pieces(us.other()).count() as u8,
        ))
    } else {
        sector_of(pos).map(SectorKey::Placing)
    }
}

/// Counts of a table's distinct positions (canonical slots), as its header gives them.
#[derive(Clone, Debug, Serialize)]
pub struct SectorStats {
    /// `moving` or `placing`.
    pub phase: &'static str,
    /// `nine` or `twelve`.
    pub variant: &'static str,
    /// Whether flying is on.
    pub flying: bool,
    /// Placements made (placing sectors only).
    pub ply: Option<u8>,
    /// Pieces on the board of the side to move.
    pub pieces_to_move: u8,
    /// Pieces on the board of the other side.
    pub pieces_other: u8,
    /// Pieces in hand of the side to move and the other side (placing sectors only).
    pub in_hand: Option<[u8; 2]>,
    /// Slots of the table (symmetric twins included).
    pub slots: u64,
    /// Distinct positions up to symmetry.
    pub positions: u64,
    /// Won for the side to move (within the 100-ply rule).
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost.
    pub losses: u64,
    /// Wins the 100-ply rule turns into draws from a counter of 0 (moving phase only).
    pub cursed_wins: Option<u64>,
    /// Losses the 100-ply rule saves (moving phase only).
    pub blessed_losses: Option<u64>,
    /// The longest win or loss within 100 plies, in plies to the next mill (moving only).
    pub longest: Option<u16>,
}

/// A sector's statistics from its file's header; `None` when it has no (usable) file.
pub fn sector(tb: &Tablebase, rules: Rules, key: SectorKey) -> Option<SectorStats> {
    let base = |phase, ply, m, o, in_hand| SectorStats {
        phase,
        variant: rules.variant.name(),
        flying: rules.flying,
        ply,
        pieces_to_move: m,
        pieces_other: o,
        in_hand,
        slots: 0,
        positions: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        cursed_wins: None,
        blessed_losses: None,
        longest: None,
    };
    match key {
        SectorKey::Moving(w, b) => {
            let s = tb.table(rules, w, b)?.stats();
            Some(SectorStats {
                slots: s.slots,
                positions: s.positions,
                wins: s.wins,
                draws: s.draws,
                losses: s.losses,
                cursed_wins: Some(s.spoilt_wins),
                blessed_losses: Some(s.spoilt_losses),
                longest: Some(s.real_max),
                ..base("moving", None, w, b, None)
            })
        }
        SectorKey::Placing(sec) => {
            let s = tb.placing_table(sec)?.header().stats;
            let (hm, ho) = sec.hands();
            Some(SectorStats {
                slots: s.slots,
                positions: s.positions,
                wins: s.wins,
                draws: s.draws,
                losses: s.losses,
                ..base("placing", Some(sec.ply), sec.m, sec.o, Some([hm, ho]))
            })
        }
    }
}
