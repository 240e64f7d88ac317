//! The board's symmetries: the 8 symmetries of the square, each with or without swapping the
//! inner and outer rings, kept only where they map every line to a line and every adjacency to
//! an adjacency of the variant (all 16 survive for both variants; a test checks it).

use crate::moves::Move;
use crate::position::Position;
use crate::topology::Topology;
use crate::types::{Color, Point, Variant, POINT_NAMES};
use std::sync::OnceLock;

/// The symmetries of one variant's board, the identity first.
#[derive(Debug)]
pub struct Symmetries {
    /// Each symmetry as a permutation of the point indices.
    pub perms: Vec<[u8; 24]>,
    /// Byte-wise lookup tables: a set's image is the OR of three table entries, which is much
    /// cheaper than moving 24 bits one by one in the generator's inner loop.
    tables: Vec<[[u32; 256]; 3]>,
    /// The index of each symmetry's inverse.
    inverse: [u8; 16],
}

/// (file, rank) of a point, centred on the middle of the board so that the square's symmetries
/// are sign changes and swaps.
fn coords(p: usize) -> (i32, i32) {
    let n = POINT_NAMES[p].as_bytes();
    ((n[0] - b'a') as i32 - 3, (n[1] - b'1') as i32 - 3)
}

fn point_at(x: i32, y: i32) -> Option<usize> {
    (0..24).find(|&p| coords(p) == (x, y))
}

/// All 16 candidate permutations, identity first; `None` where a map leaves the board (never
/// happens, but the check costs nothing).
fn candidates() -> Vec<Option<[u8; 24]>> {
    let mut out = Vec::new();
    for swap in [false, true] {
        for k in 0..8 {
            let mut perm = [0u8; 24];
            let mut ok = true;
            for (p, slot) in perm.iter_mut().enumerate() {
                let (mut x, mut y) = coords(p);
                if swap {
                    // Rings sit at Chebyshev distance 3 (outer), 2 and 1 (inner) from the centre.
                    match x.abs().max(y.abs()) {
                        3 => {
                            x /= 3;
                            y /= 3
                        }
                        1 => {
                            x *= 3;
                            y *= 3
                        }
                        _ => {}
                    }
                }
                if k >= 4 {
                    x = -x;
                }
                for _ in 0..(k % 4) {
                    (x, y) = (-y, x);
                }
                match point_at(x, y) {
                    Some(q) => *slot = q as u8,
                    None => ok = false,
                }
            }
            out.push(ok.then_some(perm));
        }
    }
    out
}

fn apply_perm(perm: &[u8; 24], bits: u32) -> u32 {
    let mut out = 0;
    for (p, &q) in perm.iter().enumerate() {
        if bits & (1 << p) != 0 {
            out |= 1 << q;
        }
    }
    out
}

/// Whether `perm` maps the variant's lines onto its lines and adjacency onto adjacency.
pub fn preserves(topo: &Topology, perm: &[u8; 24]) -> bool {
    let lines = topo.lines();
    let lines_ok = lines.iter().all(|&l| lines.contains(&apply_perm(perm, l)));
    let adj_ok =
        (0..24).all(|p| apply_perm(perm, topo.adjacent[p].0) == topo.adjacent[perm[p] as usize].0);
    let bijective = apply_perm(perm, (1 << 24) - 1) == (1 << 24) - 1;
    lines_ok && adj_ok && bijective
}

impl Symmetries {
    fn build(variant: Variant) -> Symmetries {
        let topo = Topology::of(variant);
        let perms: Vec<[u8; 24]> = candidates()
            .into_iter()
            .flatten()
            .filter(|p| preserves(topo, p))
            .collect();
        let tables = perms
            .iter()
            .map(|perm| {
                let mut t = [[0u32; 256]; 3];
                for (k, tk) in t.iter_mut().enumerate() {
                    for (byte, e) in tk.iter_mut().enumerate() {
                        *e = apply_perm(perm, (byte as u32) << (8 * k));
                    }
                }
                t
            })
            .collect();
        let mut inverse = [0u8; 16];
        for (g, p) in perms.iter().enumerate() {
            inverse[g] = perms
                .iter()
                .position(|q| (0..24).all(|i| q[p[i] as usize] as usize == i))
                .expect("symmetries form a group") as u8;
        }
        Symmetries {
            perms,
            tables,
            inverse,
        }
    }

    /// The symmetries of a variant (computed once).
    pub fn of(variant: Variant) -> &'static Symmetries {
        static NINE: OnceLock<Symmetries> = OnceLock::new();
        static TWELVE: OnceLock<Symmetries> = OnceLock::new();
        match variant {
            Variant::Nine => NINE.get_or_init(|| Symmetries::build(Variant::Nine)),
            Variant::Twelve => TWELVE.get_or_init(|| Symmetries::build(Variant::Twelve)),
        }
    }

    /// Number of symmetries (at most 16, so a set of them fits a `u16` mask).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.perms.len()
    }

    /// Always false: the identity is a symmetry.
    pub fn is_empty(&self) -> bool {
        self.perms.is_empty()
    }

    /// The image of point `p` under symmetry `g`, as a set.
    #[inline(always)]
    pub fn point(&self, g: usize, p: usize) -> u32 {
        1 << self.perms[g][p]
    }

    /// The image of a set of points under symmetry `g`.
    #[inline(always)]
    pub fn apply(&self, g: usize, bits: u32) -> u32 {
        let t = &self.tables[g];
        t[0][(bits & 0xff) as usize]
            | t[1][((bits >> 8) & 0xff) as usize]
            | t[2][((bits >> 16) & 0xff) as usize]
    }

    /// The index of the inverse of symmetry `g`.
    #[inline(always)]
    pub fn inverse(&self, g: usize) -> usize {
        self.inverse[g] as usize
    }

    /// `m` with every point moved by symmetry `g`.
    pub fn map_move(&self, g: usize, m: Move) -> Move {
        if g == 0 {
            return m;
        }
        let perm = &self.perms[g];
        let pt = |p: Point| Point::from_index(perm[p.index()] as usize);
        let base = match m.from() {
            Some(f) => Move::slide(pt(f), pt(m.to())),
            None => Move::place(pt(m.to())),
        };
        match m.removal() {
            Some(r) => base.with_removal(pt(r)),
            None => base,
        }
    }

    /// The smallest [`Position::repetition_key`] among the position's images, and the symmetry
    /// that maps the position onto it: equal for two positions exactly when one is the other's
    /// image (the side to move and the hands are part of the key and unchanged by a symmetry).
    #[inline]
    pub fn class_key(&self, pos: &Position) -> (u64, u8) {
        let plain = pos.repetition_key();
        let (w, b) = (pos.pieces(Color::White).0, pos.pieces(Color::Black).0);
        let rest = plain & !((1 << 48) - 1);
        let mut best = (plain, 0u8);
        for g in 1..self.len() {
            let k = self.apply(g, w) as u64 | (self.apply(g, b) as u64) << 24 | rest;
            if k < best.0 {
                best = (k, g as u8);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_sixteen_preserve_both_variants() {
        for v in [Variant::Nine, Variant::Twelve] {
            let s = Symmetries::of(v);
            assert_eq!(s.len(), 16, "{v}");
            assert_eq!(s.perms[0], core::array::from_fn(|i| i as u8));
            // The images are pairwise different permutations.
            for i in 0..16 {
                for j in 0..i {
                    assert_ne!(s.perms[i], s.perms[j]);
                }
            }
            let topo = Topology::of(v);
            for g in 0..16 {
                assert!(preserves(topo, &s.perms[g]));
                for &l in topo.lines() {
                    assert_eq!(s.apply(g, l), apply_perm(&s.perms[g], l));
                }
            }
        }
    }

    #[test]
    fn a_move_mapped_and_mapped_back_is_itself() {
        for variant in [Variant::Nine, Variant::Twelve] {
            let sym = Symmetries::of(variant);
            let m = Move::slide(Point::from_index(0), Point::from_index(9))
                .with_removal(Point::from_index(17));
            for g in 0..sym.len() {
                let there = sym.map_move(g, m);
                assert_eq!(sym.map_move(sym.inverse(g), there), m, "{g}");
                assert_eq!(sym.inverse(sym.inverse(g)), g);
            }
            // Not every symmetry is its own inverse, so the test above can tell them apart.
            assert!((0..sym.len()).any(|g| sym.inverse(g) != g));
        }
    }

    /// A position and each of its images get one class key, and the symmetry returned maps the
    /// position onto the key's sets (what the search's table relies on to store a move in the
    /// key's orientation and read it back in the position's).
    #[test]
    fn images_share_a_class_key() {
        use crate::types::Rules;
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        for variant in [Variant::Nine, Variant::Twelve] {
            let sym = Symmetries::of(variant);
            let mut pos = Position::new(Rules::new(variant, true));
            for _ in 0..12 {
                let moves = pos.legal_moves();
                pos.make(moves[rng.gen_range(0..moves.len())]);
                let (key, g) = sym.class_key(&pos);
                let (w, b) = (pos.pieces(Color::White).0, pos.pieces(Color::Black).0);
                assert_eq!(
                    key & ((1 << 48) - 1),
                    sym.apply(g as usize, w) as u64 | (sym.apply(g as usize, b) as u64) << 24
                );
                for h in 0..sym.len() {
                    let image = Position::from_sets(
                        pos.rules(),
                        sym.apply(h, w),
                        sym.apply(h, b),
                        pos.in_hand(Color::White),
                        pos.in_hand(Color::Black),
                        pos.side_to_move(),
                    )
                    .unwrap();
                    assert_eq!(sym.class_key(&image).0, key, "{pos} image {h}");
                }
            }
        }
    }

    #[test]
    fn a_map_that_breaks_lines_is_rejected() {
        // Swapping two points of different lines is no symmetry.
        let mut perm: [u8; 24] = core::array::from_fn(|i| i as u8);
        perm.swap(0, 4);
        assert!(!preserves(Topology::of(Variant::Nine), &perm));
    }
}
