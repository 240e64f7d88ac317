//! Sectors of the placing phase: which positions share a table, which tables a run makes, and
//! what each one reads.
//!
//! A sector is named by the placements made so far, `ply` (0 at the start; the moving phase
//! begins at ply `2 n` for `n` pieces a side), and the pieces on the board of the side to move
//! (`m`) and of the other side (`o`). The ply fixes everything else: White moves at even plies,
//! the side to move has `n - ply / 2` pieces in hand and the other side `n - (ply + 1) / 2`.
//! Positions are stored from the side to move's view, indexed as the moving phase's sub-space
//! (m, o) is ([`SubIndex`]), so White's and Black's turns of a ply share nothing and need nothing.
//!
//! A sector's *material* is every piece of both sides, on the board and in hand; no ply adds
//! material, so a sector and everything it depends on have at most its material, and
//! `--max-pieces` bounds the material of a partial set (as it bounds the pieces of the moving
//! phase's sub-spaces).

use crate::tablebase::index::SubIndex;
use crate::types::{Color, Rules, Variant};

/// One placing-phase sector.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sector {
    /// The rules.
    pub rules: Rules,
    /// Placements made so far, `0 .. 2 n`.
    pub ply: u8,
    /// Pieces of the side to move on the board.
    pub m: u8,
    /// Pieces of the other side on the board.
    pub o: u8,
}

/// Where a move from a sector leads: a sector of the next ply, the moving phase, or a result the
/// rules give before any table is asked. Values are for the side to move *after* the move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Child {
    /// A placing-phase sector one ply later.
    Placing(Sector),
    /// The moving phase's sub-space (side to move's pieces, other side's), at counter 0.
    Moving(u8, u8),
    /// The side to move there has fewer than three pieces (board and hand): it has lost.
    Lost,
    /// Twelve's full board after the last placement: a draw.
    FullBoard,
    /// The other side has fewer than three pieces and none in hand: the side to move wins if it
    /// has a move (the other side then loses at its turn), else loses at once.
    WinsIfItMoves,
}

impl Sector {
    /// The sector (`ply`, `m`, `o`) of `rules`; `None` where no counts fit (not a check of
    /// reachability: see [`Sector::is_stored`]).
    pub fn new(rules: Rules, ply: u8, m: u8, o: u8) -> Option<Sector> {
        let n = rules.variant.pieces();
        let s = Sector { rules, ply, m, o };
        (ply < 2 * n && m <= s.placed_by_mover() && o <= s.placed_by_other()).then_some(s)
    }

    /// Pieces a side starts with.
    pub fn pieces(&self) -> u8 {
        self.rules.variant.pieces()
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        if self.ply.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        }
    }

    /// Pieces the side to move has placed.
    pub fn placed_by_mover(&self) -> u8 {
        self.ply / 2
    }

    /// Pieces the other side has placed.
    pub fn placed_by_other(&self) -> u8 {
        self.ply.div_ceil(2)
    }

    /// Pieces in hand: (side to move, other side).
    pub fn hands(&self) -> (u8, u8) {
        let n = self.pieces();
        (n - self.placed_by_mover(), n - self.placed_by_other())
    }

    /// Every piece of both sides, on the board and in hand.
    pub fn material(&self) -> u8 {
        let (hm, ho) = self.hands();
        self.m + self.o + hm + ho
    }

    /// Whether the side to move has lost by the rules (fewer than three pieces, board and
    /// hand): such sectors are not stored.
    pub fn is_lost(&self) -> bool {
        self.m + self.hands().0 < 3
    }

    /// Whether a run stores this sector: the side to move has not lost; the other side has at
    /// least three pieces (it had them at its last turn, and its own placement kept them); and
    /// each side has lost no more pieces than the other side's placements could have closed
    /// mills (the first mill takes three placements, each later placement closes at most one).
    pub fn is_stored(&self) -> bool {
        let (pm, po) = (self.placed_by_mover(), self.placed_by_other());
        !self.is_lost()
            && self.o + self.hands().1 >= 3
            && pm - self.m <= po.saturating_sub(2)
            && po - self.o <= pm.saturating_sub(2)
    }

    /// The index of the sector's positions.
    pub fn index(&self) -> SubIndex {
        SubIndex::new(self.rules.variant, self.m, self.o)
    }

    /// Slots of the sector's table.
    pub fn slots(&self) -> u64 {
        self.index().len() as u64
    }

    /// The file name, such as `nine-fly-p17-8v9.mpt` (17 placements made, 8 pieces of the side
    /// to move on the board against 9).
    pub fn file_name(&self) -> String {
        format!(
            "{}-{}-p{}-{}v{}.mpt",
            self.rules.variant.name(),
            if self.rules.flying { "fly" } else { "nofly" },
            self.ply,
            self.m,
            self.o
        )
    }

    /// Parses a file name of [`Sector::file_name`]'s form.
    pub fn parse_file_name(name: &str) -> Option<Sector> {
        let stem = name.strip_suffix(".mpt")?;
        let mut parts = stem.split('-');
        let variant: Variant = parts.next()?.parse().ok()?;
        let flying = match parts.next()? {
            "fly" => true,
            "nofly" => false,
            _ => return None,
        };
        let ply: u8 = parts.next()?.strip_prefix('p')?.parse().ok()?;
        let (m, o) = parts.next()?.split_once('v')?;
        if parts.next().is_some() {
            return None;
        }
        let s = Sector::new(
            Rules::new(variant, flying),
            ply,
            m.parse().ok()?,
            o.parse().ok()?,
        )?;
        // A name must round-trip: no leading zeros or signs.
        (s.file_name() == name).then_some(s)
    }

    /// Where a placement leads: `mill` tells whether it closes a mill (which removes a piece
    /// when the other side has one on the board).
    pub fn child(&self, mill: bool) -> Child {
        let n = self.pieces();
        let (hm, ho) = self.hands();
        let o = self.o.saturating_sub(mill as u8);
        let m = self.m + 1;
        if self.ply + 1 < 2 * n {
            let s = Sector {
                rules: self.rules,
                ply: self.ply + 1,
                m: o,
                o: m,
            };
            return if s.is_lost() {
                Child::Lost
            } else {
                Child::Placing(s)
            };
        }
        debug_assert_eq!((hm, ho), (1, 0));
        if o < 3 {
            Child::Lost
        } else if m + o == 24 {
            Child::FullBoard
        } else if m < 3 {
            Child::WinsIfItMoves
        } else {
            Child::Moving(o, m)
        }
    }

    /// The child after a placement that closes a mill, or [`Child::Lost`] where none can (fewer
    /// than three pieces of the mover after it, or no piece of the other side to remove): there
    /// the mill's sector may not exist (ply 3's 1v2 would name ply 4's 1v2, which no game
    /// reaches) and nothing reads it.
    pub fn mill_child(&self) -> Child {
        if self.o > 0 && self.m + 1 >= 3 {
            self.child(true)
        } else {
            Child::Lost
        }
    }

    /// The sectors of `rules` a run stores, with material at most `max_material`, in the order
    /// they are solved: later plies first (each reads only the next ply), and within a ply by
    /// the mover's pieces and then the other side's, falling, so that consecutive sectors share
    /// one of their two inputs.
    pub fn all(rules: Rules, max_material: u8) -> Vec<Sector> {
        let n = rules.variant.pieces();
        let mut out = Vec::new();
        for ply in (0..2 * n).rev() {
            for m in (0..=n).rev() {
                for o in (0..=n).rev() {
                    if let Some(s) = Sector::new(rules, ply, m, o) {
                        if s.is_stored() && s.material() <= max_material {
                            out.push(s);
                        }
                    }
                }
            }
        }
        out
    }

    /// The tables a sector reads: placing sectors of the next ply and moving sub-spaces.
    pub fn inputs(&self) -> Vec<Child> {
        let mut v = vec![self.child(false), self.mill_child()];
        v.retain(|c| matches!(c, Child::Placing(_) | Child::Moving(..)));
        v.dedup();
        v
    }
}

impl std::fmt::Display for Sector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (hm, ho) = self.hands();
        write!(
            f,
            "{} p{} {}+{}v{}+{}",
            self.rules, self.ply, self.m, hm, self.o, ho
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_ply() {
        let r = Rules::default();
        let s = Sector::new(r, 0, 0, 0).unwrap();
        assert_eq!(
            (s.hands(), s.side_to_move(), s.material()),
            ((9, 9), Color::White, 18)
        );
        let s = Sector::new(r, 17, 8, 9).unwrap();
        assert_eq!((s.hands(), s.side_to_move()), ((1, 0), Color::Black));
        assert_eq!(s.child(false), Child::Moving(9, 9));
        assert_eq!(s.child(true), Child::Moving(8, 9));
        assert!(Sector::new(r, 18, 0, 0).is_none());
        assert!(Sector::new(r, 3, 2, 1).is_none());
    }

    #[test]
    fn file_names_round_trip() {
        for s in Sector::all(Rules::new(Variant::Twelve, false), 24) {
            assert_eq!(Sector::parse_file_name(&s.file_name()), Some(s));
        }
        assert_eq!(Sector::parse_file_name("nine-fly-p017-8v9.mpt"), None);
        assert_eq!(Sector::parse_file_name("nine-fly-p18-8v9.mpt"), None);
    }

    #[test]
    fn stored_sectors_only_lead_to_stored_sectors_or_rule_ends() {
        for rules in [Rules::default(), Rules::new(Variant::Twelve, true)] {
            let all = Sector::all(rules, 24);
            for s in &all {
                // What the generator reads: the quiet child and the mill's where one can close.
                for c in [s.child(false), s.mill_child()] {
                    if let Child::Placing(t) = c {
                        assert!(all.contains(&t), "{s} -> {t}");
                    }
                }
            }
        }
    }
}
