//! Labelled positions from the tables: the training data of the learned evaluation, and a data
//! set for anyone who wants the truth of many positions at once.
//!
//! Two distributions, each a pure function of its seed (whatever the number of threads):
//!
//! - [`Distribution::Games`]: positions as games reach them. Each game starts with 0 to 4
//!   random plies; each side then errs with a rate drawn per game from [`ERROR_RATES`]: at each
//!   turn, with that chance, a random legal move, else a move chosen at random among those that
//!   keep the best value the tables give (a perfect but aimless player). Every position after
//!   the opening is kept, until the game ends by the rules, by the 100-ply rule, or after
//!   [`MAX_GAME_PLIES`] plies. Strong and weak play side by side give both the balanced
//!   positions of careful play and the lopsided ones of blunders.
//! - [`Distribution::Uniform`]: a placing sector or moving sub-space picked uniformly among those
//!   with a table, then a slot of it uniformly: every kind of position equally, however rare in
//!   games.
//! - [`Distribution::Search`]: the positions the engine's search evaluates. The games above are
//!   played; from one position in [`SEARCH_ROOT_EVERY`] (of the phase asked for) the search
//!   with the learned evaluation runs [`SEARCH_NODES`] nodes on one thread, and one in
//!   [`SEARCH_KEEP_EVERY`] of the positions it evaluates is kept, whatever their phase. These
//!   are where an evaluation is used: the far ends of lines, with lopsided trades and
//!   threats that games between careful players seldom reach, and whose values decide what the
//!   search plays.
//!
//! A [`Sample`] is 16 bytes on disk ([`Sample::to_bytes`]); a file of them starts with a
//! 16-byte header ([`FILE_MAGIC`], then the count as `u64`).

use super::{placing, SubIndex, Tablebase, Wdl};
use crate::game::Game;
use crate::nnue::Network;
use crate::position::Position;
use crate::search::{Limits, Searcher, Shared};
use crate::tt::TranspositionTable;
use crate::types::{Color, Rules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Instant;

/// The start of a sample file.
pub const FILE_MAGIC: &[u8; 8] = b"MILLSMP1";
/// Bytes of one sample on disk.
pub const RECORD_BYTES: usize = 16;
/// The chances of a random move, one drawn per side and game, in [`Distribution::Games`].
pub const ERROR_RATES: [f64; 6] = [0.0, 0.02, 0.05, 0.15, 0.4, 1.0];
/// A game of [`Distribution::Games`] stops after this many plies.
pub const MAX_GAME_PLIES: usize = 240;
/// Samples made from one seed each; the unit of parallel work.
const CHUNK: usize = 4096;
/// Uniform samples drawn from each table picked (for a placing table, from one decoded block).
const PER_BLOCK: usize = 16;
/// [`Distribution::Search`] searches from one game position in this many.
pub const SEARCH_ROOT_EVERY: u32 = 4;
/// Nodes of each search of [`Distribution::Search`] (a node limit, not a time, so that a seed
/// gives the same samples on any machine; about what 50 ms reach).
pub const SEARCH_NODES: u64 = 50_000;
/// [`Distribution::Search`] keeps one evaluated position in this many (at random).
pub const SEARCH_KEEP_EVERY: u32 = 32;
/// The transposition table of each sampling search.
const SEARCH_HASH_MB: usize = 4;

/// Which positions to sample.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Distribution {
    /// As games reach them.
    Games,
    /// Uniform over each sector and sub-space.
    Uniform,
    /// The positions the search evaluates, from roots as games reach them.
    Search,
}

impl Distribution {
    /// Whether it plays games, and so needs every table of the rules.
    pub fn plays_games(self) -> bool {
        self != Distribution::Uniform
    }
}

impl std::str::FromStr for Distribution {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "games" => Ok(Distribution::Games),
            "uniform" => Ok(Distribution::Uniform),
            "search" => Ok(Distribution::Search),
            _ => Err(format!(
                "unknown distribution '{s}' (games, uniform or search)"
            )),
        }
    }
}

/// Which phase's positions to keep.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    /// Both.
    #[default]
    Any,
    /// Only positions with pieces in hand. A game of [`Distribution::Games`] stops where the
    /// moving phase begins, so no time goes to the moving phase's probes; uniform picks
    /// placing sectors only.
    Placing,
    /// Only positions without pieces in hand (games still play their placing phase through).
    Moving,
}

impl Phase {
    /// Whether a position of this phase is kept.
    pub fn keeps(self, pos: &Position) -> bool {
        match self {
            Phase::Any => true,
            Phase::Placing => !pos.is_moving_phase(),
            Phase::Moving => pos.is_moving_phase(),
        }
    }
}

impl std::str::FromStr for Phase {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "any" => Ok(Phase::Any),
            "placing" => Ok(Phase::Placing),
            "moving" => Ok(Phase::Moving),
            _ => Err(format!("unknown phase '{s}' (any, placing or moving)")),
        }
    }
}

/// One labelled position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// White's pieces (bit i: point i).
    pub white: u32,
    /// Black's pieces.
    pub black: u32,
    /// Pieces in hand, White's and Black's.
    pub hand: [u8; 2],
    /// The side to move.
    pub side: Color,
    /// The rules.
    pub rules: Rules,
    /// The exact result for the side to move under the rules, at this 100-ply counter: 1 win,
    /// 0 draw, -1 loss.
    pub result: i8,
    /// Plies to the next mill under best play for a decided moving-phase position, when asked
    /// for (`u8::MAX` otherwise; the placing tables store no distance).
    pub plies: u8,
    /// The 100-ply counter.
    pub rule50: u8,
}

impl Sample {
    /// The sample of a position with its result.
    pub fn new(pos: &Position, result: i8, plies: u8) -> Sample {
        Sample {
            white: pos.pieces(Color::White).0,
            black: pos.pieces(Color::Black).0,
            hand: [pos.in_hand(Color::White), pos.in_hand(Color::Black)],
            side: pos.side_to_move(),
            rules: pos.rules(),
            result,
            plies,
            rule50: pos.rule50().min(255) as u8,
        }
    }

    /// Whether the position is in the placing phase (a side has pieces in hand).
    pub fn is_placing(&self) -> bool {
        self.hand != [0, 0]
    }

    /// The position (with the 100-ply counter at 0; the result is the one at [`Sample::rule50`]).
    pub fn position(&self) -> Position {
        Position::from_sets_trusted(
            self.rules,
            self.white,
            self.black,
            self.hand[0],
            self.hand[1],
            self.side,
        )
    }

    /// The 16 bytes on disk: White's and Black's sets (`u32` each), the hands, the side to move
    /// (0 White), flags (bit 0 flying, bit 1 twelve), the result (`i8`), the plies, the counter
    /// and the phase (0 placing, 1 moving), little-endian.
    pub fn to_bytes(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[0..4].copy_from_slice(&self.white.to_le_bytes());
        b[4..8].copy_from_slice(&self.black.to_le_bytes());
        b[8] = self.hand[0];
        b[9] = self.hand[1];
        b[10] = self.side.index() as u8;
        b[11] = self.rules.flying as u8
            | ((self.rules.variant == crate::types::Variant::Twelve) as u8) << 1;
        b[12] = self.result as u8;
        b[13] = self.plies;
        b[14] = self.rule50;
        b[15] = !self.is_placing() as u8;
        b
    }

    /// A sample from its bytes, checked.
    pub fn from_bytes(b: &[u8]) -> Result<Sample, String> {
        if b.len() != RECORD_BYTES {
            return Err(format!("a sample is {RECORD_BYTES} bytes, not {}", b.len()));
        }
        let variant = if b[11] & 2 != 0 {
            crate::types::Variant::Twelve
        } else {
            crate::types::Variant::Nine
        };
        let s = Sample {
            white: u32::from_le_bytes(b[0..4].try_into().unwrap()),
            black: u32::from_le_bytes(b[4..8].try_into().unwrap()),
            hand: [b[8], b[9]],
            side: if b[10] == 0 {
                Color::White
            } else {
                Color::Black
            },
            rules: Rules::new(variant, b[11] & 1 != 0),
            result: b[12] as i8,
            plies: b[13],
            rule50: b[14],
        };
        let n = variant.pieces();
        if b[10] > 1
            || b[11] > 3
            || !(-1..=1).contains(&s.result)
            || s.hand[0] > n
            || s.hand[1] > n
            || s.white & s.black != 0
            || (s.white | s.black) >> 24 != 0
            || s.white.count_ones() + s.hand[0] as u32 > n as u32
            || s.black.count_ones() + s.hand[1] as u32 > n as u32
        {
            return Err("not a valid sample record".into());
        }
        Ok(s)
    }
}

fn result_of(w: Wdl) -> i8 {
    match w.real() {
        Wdl::Win => 1,
        Wdl::Loss => -1,
        _ => 0,
    }
}

/// What [`sample`] needs besides the count.
#[derive(Copy, Clone, Debug)]
pub struct SampleOptions {
    /// The rules.
    pub rules: Rules,
    /// Which positions.
    pub distribution: Distribution,
    /// The seed: the same seed and count give the same samples.
    pub seed: u64,
    /// Also read the plies to the next mill of decided moving-phase positions (about 20 us
    /// each: it decodes a distance block).
    pub distances: bool,
    /// Which phase's positions to keep.
    pub phase: Phase,
}

/// `n` labelled positions. Fails when the tables do not cover what the distribution needs
/// (the games need the complete set of the rules; uniform needs at least one table).
/// [`Distribution::Search`] searches with the built-in network of the rules' variant (the
/// hand-tuned evaluation where there is none); [`sample_with`] takes another.
pub fn sample(tb: &Tablebase, n: usize, opts: &SampleOptions) -> Result<Vec<Sample>, String> {
    let net = (opts.distribution == Distribution::Search)
        .then(|| crate::nnue::builtin(opts.rules))
        .flatten();
    sample_with(tb, n, opts, net.as_deref())
}

/// [`sample`], with `net` as the evaluation of [`Distribution::Search`]'s searches (`None`:
/// the hand-tuned one). It must be of the rules' variant.
pub fn sample_with(
    tb: &Tablebase,
    n: usize,
    opts: &SampleOptions,
    net: Option<&Network>,
) -> Result<Vec<Sample>, String> {
    if let Some(net) = net.filter(|n| n.variant != opts.rules.variant) {
        return Err(format!(
            "the network is one of {}, the samples of {}",
            net.variant.name(),
            opts.rules.variant.name()
        ));
    }
    let chunks = n.div_ceil(CHUNK);
    let parts: Result<Vec<Vec<Sample>>, String> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let len = CHUNK.min(n - c * CHUNK);
            let seed = opts
                .seed
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(c as u64);
            let mut rng = StdRng::seed_from_u64(seed);
            match opts.distribution {
                Distribution::Games => games(tb, opts, len, &mut rng, |pos, _, out| {
                    let w = tb.wdl(pos).ok_or_else(|| missing(pos))?;
                    out.push(Sample::new(pos, result_of(w), plies_of(tb, pos, opts)));
                    Ok(())
                }),
                Distribution::Uniform => uniform(tb, opts, len, &mut rng),
                Distribution::Search => {
                    let tt = TranspositionTable::new(SEARCH_HASH_MB);
                    games(tb, opts, len, &mut rng, |pos, rng, out| {
                        if rng.gen_range(0..SEARCH_ROOT_EVERY) == 0 {
                            searched(tb, opts, pos, &tt, net, rng, out);
                        }
                        Ok(())
                    })
                }
            }
        })
        .collect();
    Ok(parts?.into_iter().flatten().collect())
}

fn missing(pos: &Position) -> String {
    format!(
        "no table covers {} ({}): make the complete set first (mill-tb setup)",
        pos.to_fen(),
        pos.rules()
    )
}

fn plies_of(tb: &Tablebase, pos: &Position, opts: &SampleOptions) -> u8 {
    if !opts.distances || !pos.is_moving_phase() {
        return u8::MAX;
    }
    match tb.probe(pos) {
        Some(p) if matches!(p.wdl, Wdl::Win | Wdl::Loss) => p.plies_to_mill.min(254) as u8,
        _ => u8::MAX,
    }
}

/// Plays games as [`Distribution::Games`] describes and shows `keep` each position after the
/// opening of the phase asked for, until `keep` has put `n` samples out.
fn games(
    tb: &Tablebase,
    opts: &SampleOptions,
    n: usize,
    rng: &mut StdRng,
    mut keep: impl FnMut(&Position, &mut StdRng, &mut Vec<Sample>) -> Result<(), String>,
) -> Result<Vec<Sample>, String> {
    let mut out = Vec::with_capacity(n);
    let mut best = Vec::new();
    while out.len() < n {
        let mut pos = Position::new(opts.rules);
        let opening = rng.gen_range(0..=4);
        let errs = [
            ERROR_RATES[rng.gen_range(0..ERROR_RATES.len())],
            ERROR_RATES[rng.gen_range(0..ERROR_RATES.len())],
        ];
        for ply in 0..MAX_GAME_PLIES {
            if out.len() >= n || pos.outcome().is_some() || pos.rule50() >= 100 {
                break;
            }
            if opts.phase == Phase::Placing && pos.is_moving_phase() {
                break;
            }
            let moves = pos.legal_moves();
            if ply >= opening && opts.phase.keeps(&pos) {
                keep(&pos, rng, &mut out)?;
            }
            let random = ply < opening || rng.gen_bool(errs[pos.side_to_move().index()]);
            let m = if random {
                moves[rng.gen_range(0..moves.len())]
            } else {
                best.clear();
                let mut top = i8::MIN;
                for &m in moves.iter() {
                    let mut child = pos;
                    child.make(m);
                    let v = -result_of(tb.wdl(&child).ok_or_else(|| missing(&child))?);
                    if v > top {
                        top = v;
                        best.clear();
                    }
                    if v == top {
                        best.push(m);
                    }
                }
                best[rng.gen_range(0..best.len())]
            };
            pos.make(m);
        }
    }
    // A search puts out several hundred at once.
    out.truncate(n);
    Ok(out)
}

/// The samples one search of [`Distribution::Search`] gives from `root` (as [`sample_with`]
/// draws them, but from a root of the caller's and a seed of its own): labelled positions the
/// search evaluated, of any phase, some of them decided by the moves of the line that reached
/// them. Nothing when `root` is over.
pub fn search_samples(
    tb: &Tablebase,
    opts: &SampleOptions,
    root: &Position,
    net: Option<&Network>,
    seed: u64,
) -> Vec<Sample> {
    let mut out = Vec::new();
    if root.outcome().is_none() {
        let tt = TranspositionTable::new(SEARCH_HASH_MB);
        let mut rng = StdRng::seed_from_u64(seed);
        searched(tb, opts, root, &tt, net, &mut rng, &mut out);
    }
    out
}

/// Searches `root` for [`SEARCH_NODES`] nodes and puts out one in [`SEARCH_KEEP_EVERY`] of the
/// positions the search evaluates, labelled. The search's null move makes positions no game
/// reaches (a placing side passing, so that the hands no longer fit the side to move): no table
/// holds them, and they are left out, as are finished ones.
fn searched(
    tb: &Tablebase,
    opts: &SampleOptions,
    root: &Position,
    tt: &TranspositionTable,
    net: Option<&Network>,
    rng: &mut StdRng,
    out: &mut Vec<Sample>,
) {
    let mut seen: Vec<Position> = Vec::new();
    {
        let mut observe = |p: &Position| {
            if rng.gen_range(0..SEARCH_KEEP_EVERY) == 0 {
                seen.push(*p);
            }
        };
        tt.clear();
        let stop = AtomicBool::new(false);
        let pondering = AtomicBool::new(false);
        let origin = AtomicU64::new(0);
        let shared = Shared {
            tt,
            stop: &stop,
            nodes: AtomicU64::new(0),
            start: Instant::now(),
            budget: None,
            node_limit: Some(SEARCH_NODES),
            tb: None,
            search_draws: false,
            tbhits: AtomicU64::new(0),
            pondering: &pondering,
            clock_origin_us: &origin,
            net,
            contempt: 0,
        };
        let game = Game::new(*root);
        let mut searcher = Searcher::new(&shared, 0, &game, &[]);
        searcher.set_evaluation_observer(&mut observe);
        searcher.iterate(
            &Limits {
                nodes: Some(SEARCH_NODES),
                ..Limits::default()
            },
            &mut |_| {},
        );
    }
    for p in seen {
        if p.outcome().is_some() {
            continue;
        }
        if let Some(w) = tb.wdl(&p) {
            out.push(Sample::new(&p, result_of(w), plies_of(tb, &p, opts)));
        }
    }
}

/// The tables present for the rules: placing sectors and moving sub-spaces (w, b).
fn spaces(tb: &Tablebase, rules: Rules) -> (Vec<placing::Sector>, Vec<(u8, u8)>) {
    let n = rules.variant.pieces();
    let sectors = placing::Sector::all(rules, 2 * n)
        .into_iter()
        .filter(|s| tb.placing_table(*s).is_some())
        .collect();
    let mut moving = Vec::new();
    for w in 3..=n {
        for b in 3..=n {
            if tb.table(rules, w, b).is_some() {
                moving.push((w, b));
            }
        }
    }
    (sectors, moving)
}

fn uniform(
    tb: &Tablebase,
    opts: &SampleOptions,
    n: usize,
    rng: &mut StdRng,
) -> Result<Vec<Sample>, String> {
    let (mut sectors, mut moving) = spaces(tb, opts.rules);
    match opts.phase {
        Phase::Any => {}
        Phase::Placing => moving.clear(),
        Phase::Moving => sectors.clear(),
    }
    let total = sectors.len() + moving.len();
    if total == 0 {
        return Err(format!(
            "no table of {} ({:?} phase) in {}",
            opts.rules,
            opts.phase,
            tb.dir().display()
        ));
    }
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let k = rng.gen_range(0..total);
        if k < sectors.len() {
            // A placing table is read a compressed block at a time: draw several slots of one
            // random block (each slot still uniform over the sector), so one decode serves
            // them all.
            let s = sectors[k];
            let slots = s.slots();
            let block = placing::file::BLOCK_SLOTS as u64;
            let lo = rng.gen_range(0..slots.div_ceil(block)) * block;
            let hi = (lo + block).min(slots);
            for _ in 0..PER_BLOCK.min(n - out.len()) {
                let slot = rng.gen_range(lo..hi) as u32;
                let pos = placing::position_of_slot(s, slot).0;
                let w = tb.wdl(&pos).ok_or_else(|| missing(&pos))?;
                out.push(Sample::new(&pos, result_of(w), u8::MAX));
            }
            continue;
        }
        // As many from a moving sub-space, so that each table weighs the same.
        let (w, b) = moving[k - sectors.len()];
        let idx = SubIndex::new(opts.rules.variant, w, b);
        for _ in 0..PER_BLOCK.min(n - out.len()) {
            let (us, them, _) = idx.unrank(rng.gen_range(0..idx.len() as u32));
            let side = if rng.gen_bool(0.5) {
                Color::White
            } else {
                Color::Black
            };
            let (white, black) = match side {
                Color::White => (us, them),
                Color::Black => (them, us),
            };
            let pos = Position::from_sets_trusted(opts.rules, white, black, 0, 0, side);
            let w = tb.wdl(&pos).ok_or_else(|| missing(&pos))?;
            out.push(Sample::new(&pos, result_of(w), plies_of(tb, &pos, opts)));
        }
    }
    Ok(out)
}

/// A sample file's bytes: the header and the records.
pub fn to_file_bytes(samples: &[Sample]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + samples.len() * RECORD_BYTES);
    out.extend_from_slice(FILE_MAGIC);
    out.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    for s in samples {
        out.extend_from_slice(&s.to_bytes());
    }
    out
}

/// The samples of a file's bytes, checked (header, length, every record).
pub fn from_file_bytes(bytes: &[u8]) -> Result<Vec<Sample>, String> {
    if bytes.len() < 16 || &bytes[..8] != FILE_MAGIC {
        return Err("not a sample file (it does not start with MILLSMP1)".into());
    }
    let n = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
    let body = &bytes[16..];
    if body.len() as u64 != n.saturating_mul(RECORD_BYTES as u64) {
        return Err(format!(
            "the header says {n} samples but the file holds {} bytes of records",
            body.len()
        ));
    }
    body.chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(i, c)| Sample::from_bytes(c).map_err(|e| format!("record {i}: {e}")))
        .collect()
}
