//! What the table directory holds, per rule set: the moving phase's sub-spaces and the placing
//! phase's sectors. Listed once at start with the library's own file-name parsers (the server
//! never builds a path from a request), logged, and shown by `/api/v1/info`.

use millstone::tablebase::placing::Sector;
use millstone::tablebase::{parse_file_name, Tablebase};
use millstone::{Rules, Variant};
use serde::Serialize;
use std::path::Path;

/// The four rule sets, in the order the API lists them.
pub const ALL_RULES: [Rules; 4] = [
    Rules::new(Variant::Nine, true),
    Rules::new(Variant::Nine, false),
    Rules::new(Variant::Twelve, true),
    Rules::new(Variant::Twelve, false),
];

/// One rule set's files.
#[derive(Clone, Debug, Serialize)]
pub struct RuleSet {
    /// `nine` or `twelve`.
    pub variant: &'static str,
    /// Whether flying is on.
    pub flying: bool,
    /// Moving-phase sub-spaces with a file.
    pub moving_subspaces: usize,
    /// Of how many the rule set has (3 to n pieces a side).
    pub moving_subspaces_total: usize,
    /// Placing-phase sectors with a file.
    pub placing_sectors: usize,
    /// Of how many a complete set stores.
    pub placing_sectors_total: usize,
    /// The largest number of pieces on the board of a sub-space present (0: none).
    pub max_moving_pieces: u8,
    #[serde(skip)]
    /// The rules, for the server itself.
    pub rules: Rules,
}

impl RuleSet {
    /// Whether every position of the game, both phases, has a table.
    pub fn is_complete(&self) -> bool {
        self.moving_subspaces == self.moving_subspaces_total
            && self.placing_sectors == self.placing_sectors_total
    }
}

/// Every rule set with at least one file in `dir`, counted from the directory's listing.
pub fn scan(dir: &Path, tb: &Tablebase) -> std::io::Result<Vec<RuleSet>> {
    let mut moving = [0usize; 4];
    let mut max_pieces = [0u8; 4];
    for e in std::fs::read_dir(dir)?.filter_map(|e| e.ok()) {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some((rules, w, b)) = parse_file_name(&name) {
            let i = ALL_RULES.iter().position(|&r| r == rules).unwrap_or(0);
            moving[i] += 1;
            max_pieces[i] = max_pieces[i].max(w + b);
        }
    }
    let mut out = Vec::new();
    for (i, &rules) in ALL_RULES.iter().enumerate() {
        let placing = tb.placing_count(rules);
        if moving[i] == 0 && placing == 0 {
            continue;
        }
        let n = rules.variant.pieces() as usize;
        out.push(RuleSet {
            variant: rules.variant.name(),
            flying: rules.flying,
            moving_subspaces: moving[i],
            moving_subspaces_total: (n - 2) * (n - 2),
            placing_sectors: placing,
            placing_sectors_total: Sector::all(rules, 2 * rules.variant.pieces()).len(),
            max_moving_pieces: max_pieces[i],
            rules,
        });
    }
    Ok(out)
}
