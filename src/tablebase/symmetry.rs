//! The board's symmetries: the 8 symmetries of the square, each with or without swapping the
//! inner and outer rings, kept only where they map every line to a line and every adjacency to
//! an adjacency of the variant (all 16 survive for both variants; a test checks it).

use crate::topology::Topology;
use crate::types::{Variant, POINT_NAMES};
use std::sync::OnceLock;

/// The symmetries of one variant's board, the identity first.
#[derive(Debug)]
pub struct Symmetries {
    /// Each symmetry as a permutation of the point indices.
    pub perms: Vec<[u8; 24]>,
    /// Byte-wise lookup tables: a set's image is the OR of three table entries, which is much
    /// cheaper than moving 24 bits one by one in the generator's inner loop.
    tables: Vec<[[u32; 256]; 3]>,
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
        Symmetries { perms, tables }
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
    fn a_map_that_breaks_lines_is_rejected() {
        // Swapping two points of different lines is no symmetry.
        let mut perm: [u8; 24] = core::array::from_fn(|i| i as u8);
        perm.swap(0, 4);
        assert!(!preserves(Topology::of(Variant::Nine), &perm));
    }
}
