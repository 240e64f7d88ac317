//! Solving a placing sector: one backward pass over the sectors one ply later.
//!
//! The placing phase has no cycles (each ply empties a hand by one), so a sector is solved in one
//! pass: every position takes the best of its placements' results, read from the next ply's
//! sectors, or at the last placement from the moving phase's tables at counter 0 (their W/D/L
//! digit is then the result under the rules). The ends the rules decide (fewer than three
//! pieces, twelve's full board, a side that cannot move after the last placement) are settled
//! per input sector before any table is read ([`Child`]).
//!
//! # Locality
//!
//! A position (U to move, T the other side) leads to (T to move, U plus the new piece): every
//! child has the parent's *other* side as its side to move. So the pass walks the parents by
//! their other side's set T, one canonical T at a time: all children of all parents with that T
//! lie in the slots of one `us` set of the child sector (C(24 - |T|, |U| + 1) bytes, a few KB:
//! in cache), and one key serves them all. The mills' children have T less one piece as their
//! side to move: one key per removable piece, made once per T. What is scattered is the parent's
//! own slot, one write per position, which the hardware overlaps.
//!
//! Each parent orbit is met once per symmetry of T that maps its U elsewhere; for the rare T
//! with a symmetry, only the U smallest under T's stabiliser are solved. Slots that are not the
//! canonical form of anything (a symmetric `us` set's twins) take their twin's value at the end.

use super::sector::{Child, Sector};
use crate::bitboard::Bitboard;
use crate::tablebase::format::{DIGIT_LOSS, DIGIT_OTHER, DIGIT_WIN};
use crate::tablebase::index::{next_combination, Deposit, SubIndex, UsIndex};
use crate::topology::Topology;
use crate::types::Point;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering};

/// A slot no position has written yet (never a digit).
const UNSOLVED: u8 = 3;

/// The result of the side to move after a move: where to read it.
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// A table of digits (one a slot) with its index: side to move's pieces first.
    Table(&'a [u8], SubIndex),
    /// The same digit for every position (a rule's end).
    Const(u8),
    /// The side to move there wins if it has a move, else loses at once.
    IfItMoves {
        /// Whether its pieces may fly (three pieces, flying on).
        flies: bool,
    },
}

impl Source<'_> {
    /// The rule end of a child that needs no table, `None` for a table's.
    pub fn of_rule(child: Child, rules: crate::Rules) -> Option<Source<'static>> {
        Some(match child {
            Child::Lost => Source::Const(DIGIT_LOSS),
            Child::FullBoard => Source::Const(DIGIT_OTHER),
            Child::WinsIfItMoves => Source::IfItMoves {
                flies: rules.flying,
            },
            Child::Placing(_) | Child::Moving(..) => return None,
        })
    }
}

/// Solves `sector` from the results after its placements without a mill (`quiet`) and with one
/// (`mill`; unused when no mill can remove a piece). Returns one digit a slot, for the side to
/// move.
pub fn solve_sector(sector: Sector, quiet: Source<'_>, mill: Source<'_>) -> Vec<u8> {
    let variant = sector.rules.variant;
    let topo = Topology::of(variant);
    let parent = sector.index();
    let (m, o) = (sector.m as usize, sector.o as usize);
    let mut values = crate::tablebase::hugepages::filled(parent.len(), UNSOLVED);
    {
        // SAFETY: AtomicU8 has the size and alignment of u8, and `values` is not touched
        // through any other path while `cells` lives. Threads write disjoint slots, except the
        // same value to the same slot when two of their (U, T) are one position.
        let cells: &[AtomicU8] =
            unsafe { &*(values.as_mut_slice() as *mut [u8] as *const [AtomicU8]) };
        let others = UsIndex::of(variant, o);
        others
            .canon
            .par_iter()
            .enumerate()
            .with_min_len(8)
            .for_each(|(ti, &t)| {
                solve_other_set(
                    sector,
                    topo,
                    &parent,
                    t,
                    others.stab[ti],
                    m,
                    quiet,
                    mill,
                    cells,
                )
            });
    }
    fill_twins(&parent, &mut values);
    debug_assert!(values.iter().all(|&d| d < UNSOLVED));
    values
}

/// Solves every parent whose other side has the canonical set `t`.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn solve_other_set(
    sector: Sector,
    topo: &Topology,
    parent: &SubIndex,
    t: u32,
    stab: u16,
    m: usize,
    quiet: Source<'_>,
    mill: Source<'_>,
    cells: &[AtomicU8],
) {
    const ALL: u32 = 0xff_ffff;
    let syms = crate::tablebase::Symmetries::of(sector.rules.variant);
    let quiet_key = match &quiet {
        Source::Table(_, idx) => Some(idx.key(t)),
        _ => None,
    };
    // The mills' children: T less each piece a mill may take, each with its key.
    let mut takes: [(u32, Option<crate::tablebase::UsKey>); 12] = [(0, None); 12];
    let mut n_takes = 0;
    if t != 0 {
        let removable = topo.removable(Bitboard(t));
        for p in removable {
            let left = t & !(1u32 << p.index());
            let key = match &mill {
                Source::Table(_, idx) => Some(idx.key(left)),
                _ => None,
            };
            takes[n_takes] = (left, key);
            n_takes += 1;
        }
    }
    let free = !t & ALL;
    let dep = Deposit::new(free);
    let n_free = 24 - sector.o as usize;
    // The free points in increasing order: bit j of a combination is point `points[j]`.
    let mut points = [0u8; 24];
    let mut f = free;
    for p in points.iter_mut().take(n_free) {
        *p = f.trailing_zeros() as u8;
        f &= f - 1;
    }
    // The quiet children's slots: with T canonical and without a symmetry, the slot of
    // (T, U + q) is the chunk's base plus the colex rank of U + q among T's free points,
    // which the loop below builds from U's own bits instead of ranking each child.
    let plain = match (&quiet, &quiet_key) {
        (Source::Table(values, _), Some(key)) => {
            key.plain_base().map(|base| (*values, base as usize))
        }
        _ => None,
    };
    let binom = &crate::tablebase::index::BINOM;
    let slots = binom[n_free][m];
    let parent_digit = |comb: u32| -> u8 {
        let u = dep.apply(comb);
        // rank(U + j) = sum over U's points below j of C(p_i, i) + C(j, r + 1) + sum over
        // those above of C(p_i, i + 1), r the points below: `split[r]` holds the two sums.
        let mut split = [0u32; 13];
        if plain.is_some() {
            let mut high: u32 = 0;
            let mut bits = comb;
            let mut i = 1;
            while bits != 0 {
                high += binom[bits.trailing_zeros() as usize][i + 1];
                bits &= bits - 1;
                i += 1;
            }
            split[0] = high;
            let (mut low, mut bits, mut r) = (0u32, comb, 1);
            while bits != 0 {
                let p = bits.trailing_zeros() as usize;
                low += binom[p][r];
                high -= binom[p][r + 1];
                split[r] = low + high;
                bits &= bits - 1;
                r += 1;
            }
        }
        // The digits the children show their side to move, one bit each: the parent wins if
        // a child is lost, draws if one is drawn. Gathered without a branch per child (early
        // exits mispredicted more than they saved).
        let mut seen = 0u32;
        let empty_js = !comb & ((1u32 << n_free) - 1);
        let mut mill_js = 0u32;
        if t != 0 {
            let mut e = empty_js;
            while e != 0 {
                let j = e.trailing_zeros() as usize;
                e &= e - 1;
                let q = points[j] as usize;
                let closes = topo.closes_mill(Bitboard(u | 1 << q), Point::from_index(q));
                mill_js |= (closes as u32) << j;
            }
        }
        let mut quiet_js = empty_js & !mill_js;
        if let Some((values, base)) = plain {
            while quiet_js != 0 {
                let j = quiet_js.trailing_zeros() as usize;
                quiet_js &= quiet_js - 1;
                let below = (comb & ((1u32 << j) - 1)).count_ones() as usize;
                let slot = base + (split[below] + binom[j][below + 1]) as usize;
                debug_assert_eq!(
                    Some(slot),
                    match &quiet {
                        Source::Table(_, idx) => quiet_key
                            .as_ref()
                            .map(|k| idx.index_with(k, u | 1 << points[j]) as usize),
                        _ => None,
                    }
                );
                seen |= 1 << values[slot];
            }
        } else {
            while quiet_js != 0 {
                let j = quiet_js.trailing_zeros() as usize;
                quiet_js &= quiet_js - 1;
                let after = u | 1 << points[j];
                seen |= 1 << lookup(&quiet, quiet_key.as_ref(), t, after, topo);
            }
        }
        // Each mill: the mover chooses the removal, so the child worst for its side to move
        // counts: lost if any removal loses it, else drawn if any draws it. A parent that a
        // quiet placement already wins needs none of them (the mills' children cost several
        // reads each, one a removable piece).
        if mill_js != 0 && seen & 1 << DIGIT_LOSS == 0 {
            if let Source::Table(values, idx) = mill {
                // A child's slot from U's image under the symmetry that canonicalises T less
                // the taken piece, plus the new piece's image: one image of U per removal.
                let mut images = [0u32; 12];
                for (img, (_, key)) in images.iter_mut().zip(&takes[..n_takes]) {
                    *img = idx.image(key.as_ref().expect("a table source has a key"), u);
                }
                while mill_js != 0 {
                    let j = mill_js.trailing_zeros() as usize;
                    mill_js &= mill_js - 1;
                    let q = points[j] as usize;
                    let mut children = 0u32;
                    for (&img, (_, key)) in images.iter().zip(&takes[..n_takes]) {
                        let key = key.as_ref().expect("a table source has a key");
                        let at = idx.index_of_image(key, img | idx.point_image(key, q));
                        children |= 1 << values[at as usize];
                    }
                    let worst = worst_for_mover(children);
                    seen |= 1 << worst;
                    if worst == DIGIT_LOSS {
                        break;
                    }
                }
            } else {
                while mill_js != 0 {
                    let j = mill_js.trailing_zeros() as usize;
                    mill_js &= mill_js - 1;
                    let after = u | 1 << points[j];
                    let mut children = 0u32;
                    for &(left, key) in &takes[..n_takes] {
                        children |= 1 << lookup(&mill, key.as_ref(), left, after, topo);
                    }
                    seen |= 1 << worst_for_mover(children);
                }
            }
        }
        if seen & 1 << DIGIT_LOSS != 0 {
            DIGIT_WIN
        } else if seen & 1 << DIGIT_OTHER != 0 {
            DIGIT_OTHER
        } else {
            DIGIT_LOSS
        }
    };
    // The parents' own slots are the pass's scattered accesses (a cache miss nearly every
    // time). Made one at a time between the children's work, each miss stalled the loop (a
    // third of the time); so the slots are found first, the digits next, and the digits
    // written last, in tight loops that keep many misses in flight.
    PARENTS.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        let (slots_of, digits) = &mut *buffer;
        slots_of.clear();
        digits.clear();
        let mut c: u32 = (1u32 << m) - 1;
        for step in 0..slots {
            let u = dep.apply(c);
            // The same position as a smaller image of U under T's symmetries: solved there.
            let solved_elsewhere = stab != 1 && !smallest_under(syms, stab, u);
            slots_of.push(if solved_elsewhere {
                u32::MAX
            } else {
                parent.index(u, t)
            });
            if step + 1 < slots {
                c = next_combination(c);
            }
        }
        let mut c: u32 = (1u32 << m) - 1;
        for step in 0..slots {
            let comb = c;
            if step + 1 < slots {
                c = next_combination(c);
            }
            digits.push(if slots_of[step as usize] == u32::MAX {
                UNSOLVED
            } else {
                parent_digit(comb)
            });
        }
        for (&slot, &digit) in slots_of.iter().zip(digits.iter()) {
            if slot != u32::MAX {
                cells[slot as usize].store(digit, Ordering::Relaxed);
            }
        }
    });
}

thread_local! {
    /// One canonical T's parents: their slots (`u32::MAX` where solved under another image)
    /// and digits, kept per thread so that no pass allocates.
    static PARENTS: std::cell::RefCell<(Vec<u32>, Vec<u8>)> = const {
        std::cell::RefCell::new((Vec::new(), Vec::new()))
    };
}

/// Of the children's digits (bit d set for digit d), the one a mover choosing among them
/// picks: a loss for the child's side to move if any, else a draw, else a win.
#[inline(always)]
fn worst_for_mover(children: u32) -> u8 {
    if children & 1 << DIGIT_LOSS != 0 {
        DIGIT_LOSS
    } else if children & 1 << DIGIT_OTHER != 0 {
        DIGIT_OTHER
    } else {
        DIGIT_WIN
    }
}

/// The digit of the child (`us` to move, `them`) from its source.
#[inline(always)]
fn lookup(
    src: &Source<'_>,
    key: Option<&crate::tablebase::UsKey>,
    us: u32,
    them: u32,
    topo: &Topology,
) -> u8 {
    match *src {
        Source::Table(values, idx) => {
            let key = key.expect("a table source has a key");
            values[idx.index_with(key, them) as usize]
        }
        Source::Const(d) => d,
        Source::IfItMoves { flies } => {
            let empty = !(us | them) & 0xff_ffff;
            let moves = if flies && us.count_ones() == 3 {
                empty != 0
            } else {
                Bitboard(us).any(|p| (topo.adjacent[p.index()].0 & empty) != 0)
            };
            if moves {
                DIGIT_WIN
            } else {
                DIGIT_LOSS
            }
        }
    }
}

/// Whether `x` is the smallest of its images under the symmetries of mask `st`.
#[inline]
fn smallest_under(syms: &crate::tablebase::Symmetries, st: u16, x: u32) -> bool {
    let mut mask = st & !1;
    while mask != 0 {
        if syms.apply(mask.trailing_zeros() as usize, x) < x {
            return false;
        }
        mask &= mask - 1;
    }
    true
}

/// Gives the slots that are no position's canonical form their canonical twin's value.
fn fill_twins(idx: &SubIndex, values: &mut [u8]) {
    let per = idx.slots_per_us();
    for ci in 0..idx.us_count() {
        if !idx.us_set_is_symmetric(ci) {
            continue;
        }
        let mut twins = Vec::new();
        let mut i = 0;
        idx.for_each_them(ci, |t, canonical| {
            if !canonical {
                let at = idx.offset_in_us_set(ci, idx.smallest_image(ci, t)) as usize;
                twins.push((i, at));
            }
            i += 1;
        });
        let row = &mut values[ci * per..(ci + 1) * per];
        for (i, at) in twins {
            row[i] = row[at];
        }
    }
}
