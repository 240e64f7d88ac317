//! The options table: what `uci` announces and what `setoption` may change.
//!
//! Setting an option is two steps: [`Options::parse`] checks the name and value without touching
//! anything, and the dispatch loop applies the resulting [`Setting`]. So a bad `setoption`
//! changes nothing, and a good one can stop a running search before it takes effect.

use crate::skill;
use crate::types::Variant;
use std::fmt;

/// The type of an option and its range, as UCI announces it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An integer in `min..=max`.
    Spin {
        /// Default.
        default: i64,
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// `true` or `false`.
    Check {
        /// Default.
        default: bool,
    },
    /// One of a list of words.
    Combo {
        /// Default.
        default: &'static str,
        /// The words.
        vars: &'static [&'static str],
    },
    /// An action without a value.
    Button,
    /// Free text (a path); `<empty>` stands for none, `<default>` for the data directory's.
    Text {
        /// Default.
        default: &'static str,
    },
}

/// One row of the table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The name, in its announced spelling.
    pub name: &'static str,
    /// Type and range.
    pub kind: Kind,
}

/// Every option, in the order `uci` announces them.
pub const TABLE: [Spec; 23] = [
    Spec {
        name: "Hash",
        kind: Kind::Spin {
            default: 16,
            min: 1,
            max: 65536,
        },
    },
    Spec {
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
    },
    Spec {
        name: "MultiPV",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 64,
        },
    },
    Spec {
        name: "UCI_Variant",
        kind: Kind::Combo {
            default: "nine",
            vars: &["nine", "twelve"],
        },
    },
    Spec {
        name: "Flying",
        kind: Kind::Check { default: true },
    },
    Spec {
        name: "Move Overhead",
        kind: Kind::Spin {
            default: 30,
            min: 0,
            max: 5000,
        },
    },
    Spec {
        name: "UCI_ShowWDL",
        kind: Kind::Check { default: false },
    },
    Spec {
        name: "Clear Hash",
        kind: Kind::Button,
    },
    Spec {
        name: "TablePath",
        kind: Kind::Text {
            default: "<default>",
        },
    },
    Spec {
        name: "BookPath",
        kind: Kind::Text {
            default: "<default>",
        },
    },
    Spec {
        name: "SolveHash",
        kind: Kind::Spin {
            default: crate::engine::DEFAULT_SOLVE_HASH_MB as i64,
            min: 1,
            max: 65536,
        },
    },
    Spec {
        name: "UltraStrong",
        kind: Kind::Check { default: true },
    },
    Spec {
        name: "TableChoice",
        kind: Kind::Combo {
            default: "search",
            vars: &crate::engine::TableChoice::NAMES,
        },
    },
    Spec {
        name: "UltraStrongOpponent",
        kind: Kind::Spin {
            default: crate::fallible::OpponentModel::DEFAULT_DEPTH as i64,
            min: 1,
            max: crate::fallible::OpponentModel::MAX_DEPTH as i64,
        },
    },
    Spec {
        name: "Ponder",
        kind: Kind::Check { default: false },
    },
    Spec {
        name: "Skill Level",
        kind: Kind::Spin {
            default: skill::MAX_LEVEL as i64,
            min: 0,
            max: skill::MAX_LEVEL as i64,
        },
    },
    Spec {
        name: "UCI_LimitStrength",
        kind: Kind::Check { default: false },
    },
    Spec {
        name: "UCI_Elo",
        kind: Kind::Spin {
            default: skill::MAX_ELO as i64,
            min: skill::MIN_ELO as i64,
            max: skill::MAX_ELO as i64,
        },
    },
    Spec {
        name: "Skill Seed",
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: 2147483647,
        },
    },
    Spec {
        name: "UseNNUE",
        kind: Kind::Check { default: true },
    },
    Spec {
        name: "EvalFile",
        kind: Kind::Text {
            default: "<default>",
        },
    },
    Spec {
        name: "Contempt",
        kind: Kind::Spin {
            default: crate::search::DEFAULT_CONTEMPT as i64,
            min: -1000,
            max: 1000,
        },
    },
    Spec {
        name: "TableContempt",
        kind: Kind::Spin {
            default: crate::table_root::DEFAULT_TABLE_CONTEMPT as i64,
            min: -1000,
            max: 1000,
        },
    },
];

/// A checked change, ready to apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    /// Table size in MiB.
    Hash(usize),
    /// Search threads.
    Threads(usize),
    /// Lines to report.
    MultiPv(usize),
    /// The variant.
    Variant(Variant),
    /// Whether flying is allowed.
    Flying(bool),
    /// Milliseconds kept back per move.
    MoveOverhead(u64),
    /// Whether `info` lines carry `wdl`.
    ShowWdl(bool),
    /// Empty the table.
    ClearHash,
    /// The directory of endgame tables.
    TablePath(PathChoice),
    /// The book of proven placing-phase values.
    BookPath(PathChoice),
    /// The placing-phase solver's table size in MiB.
    SolveHash(usize),
    /// Whether the search chooses among the moves that keep a proven value.
    UltraStrong(bool),
    /// How the moves that keep a table's value are narrowed before the search picks one.
    TableChoice(crate::engine::TableChoice),
    /// The depth of the fallible opponent's search that `TableChoice expected` plays against.
    UltraStrongOpponent(u8),
    /// Whether the GUI may send `go ponder` (announced; pondering works either way).
    Ponder(bool),
    /// Strength level 0..=20.
    SkillLevel(u32),
    /// Whether `UCI_Elo` sets the strength.
    LimitStrength(bool),
    /// Strength as an Elo rating.
    Elo(i32),
    /// Seed of a weakened engine's choices; 0 for a new one per process.
    SkillSeed(u64),
    /// Whether the search evaluates with the learned network (else the hand-tuned terms).
    UseNnue(bool),
    /// Centipieces a draw by the game's rules costs the side to move at the root.
    Contempt(i32),
    /// The same, in drawn roots the tables cover (where it takes `Contempt`'s place).
    TableContempt(i32),
    /// A network file to use instead of the built-in one (`Default` and `Off`: the built-in).
    EvalFile(PathChoice),
}

/// The value of a path option (`TablePath`, `BookPath`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathChoice {
    /// `<default>`: the data directory's (see [`crate::datadir`]), if it has one.
    Default,
    /// `<empty>` (or nothing): none.
    Off,
    /// An explicit path.
    Path(String),
}

impl PathChoice {
    fn parse(value: &str) -> PathChoice {
        match value {
            "" | "<empty>" => PathChoice::Off,
            v if v.eq_ignore_ascii_case("<default>") => PathChoice::Default,
            v => PathChoice::Path(v.to_string()),
        }
    }
}

/// Why a `setoption` was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// No option has this name.
    Unknown(String),
    /// The option needs a value and none was given.
    MissingValue(&'static str),
    /// The value does not fit the option.
    BadValue {
        /// The option.
        name: &'static str,
        /// The text given.
        value: String,
        /// What would fit.
        expected: String,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use super::command::quote;
        match self {
            OptionError::Unknown(n) => write!(f, "setoption: unknown option {}", quote(n)),
            OptionError::MissingValue(n) => write!(f, "setoption: option '{n}' needs a value"),
            OptionError::BadValue {
                name,
                value,
                expected,
            } => write!(
                f,
                "setoption: bad value {} for option '{name}' (expected {expected})",
                quote(value)
            ),
        }
    }
}

impl std::error::Error for OptionError {}

/// The current values of the options that shape searches and output; the others (Hash,
/// Threads, the variant) live in the engine and the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Lines to report.
    pub multipv: usize,
    /// Milliseconds kept back per move.
    pub move_overhead: u64,
    /// Whether `info` lines carry `wdl`.
    pub show_wdl: bool,
    /// `Skill Level`.
    pub skill_level: u32,
    /// `UCI_LimitStrength`.
    pub limit_strength: bool,
    /// `UCI_Elo`.
    pub elo: i32,
    /// `Skill Seed`.
    pub skill_seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            multipv: 1,
            move_overhead: 30,
            show_wdl: false,
            skill_level: skill::MAX_LEVEL,
            limit_strength: false,
            elo: skill::MAX_ELO,
            skill_seed: 0,
        }
    }
}

impl Options {
    /// Checks `setoption name <name> [value <value>]` against the table.
    pub fn parse(name: &str, value: Option<&str>) -> Result<Setting, OptionError> {
        let spec = TABLE
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| OptionError::Unknown(name.to_string()))?;
        let value = match (spec.kind, value) {
            // A button's value means nothing; some GUIs send an empty one.
            (Kind::Button, _) => "",
            (_, Some(v)) => v.trim(),
            (_, None) => return Err(OptionError::MissingValue(spec.name)),
        };
        let bad = |expected: String| OptionError::BadValue {
            name: spec.name,
            value: value.to_string(),
            expected,
        };
        match spec.kind {
            Kind::Spin { min, max, .. } => {
                let range = || format!("an integer from {min} to {max}");
                let v: i64 = value.parse().map_err(|_| bad(range()))?;
                if !(min..=max).contains(&v) {
                    return Err(bad(range()));
                }
                Ok(match spec.name {
                    "Hash" => Setting::Hash(v as usize),
                    "Threads" => Setting::Threads(v as usize),
                    "MultiPV" => Setting::MultiPv(v as usize),
                    "Move Overhead" => Setting::MoveOverhead(v as u64),
                    "Skill Level" => Setting::SkillLevel(v as u32),
                    "UCI_Elo" => Setting::Elo(v as i32),
                    "Skill Seed" => Setting::SkillSeed(v as u64),
                    "SolveHash" => Setting::SolveHash(v as usize),
                    "UltraStrongOpponent" => Setting::UltraStrongOpponent(v as u8),
                    "Contempt" => Setting::Contempt(v as i32),
                    "TableContempt" => Setting::TableContempt(v as i32),
                    other => unreachable!("spin option {other} has no setting"),
                })
            }
            Kind::Check { .. } => {
                let v = if value.eq_ignore_ascii_case("true") {
                    true
                } else if value.eq_ignore_ascii_case("false") {
                    false
                } else {
                    return Err(bad("true or false".into()));
                };
                Ok(match spec.name {
                    "Flying" => Setting::Flying(v),
                    "UCI_ShowWDL" => Setting::ShowWdl(v),
                    "Ponder" => Setting::Ponder(v),
                    "UCI_LimitStrength" => Setting::LimitStrength(v),
                    "UltraStrong" => Setting::UltraStrong(v),
                    "UseNNUE" => Setting::UseNnue(v),
                    other => unreachable!("check option {other} has no setting"),
                })
            }
            Kind::Combo { vars, .. } => {
                let expected = || vars.join(" or ");
                if !vars.iter().any(|w| w.eq_ignore_ascii_case(value)) {
                    return Err(bad(expected()));
                }
                if spec.name == "TableChoice" {
                    let c = crate::engine::TableChoice::from_name(value)
                        .ok_or_else(|| bad(expected()))?;
                    return Ok(Setting::TableChoice(c));
                }
                let v = value.parse::<Variant>().map_err(|_| bad(expected()))?;
                Ok(Setting::Variant(v))
            }
            Kind::Button => Ok(Setting::ClearHash),
            Kind::Text { .. } => {
                let path = PathChoice::parse(value);
                Ok(match spec.name {
                    "TablePath" => Setting::TablePath(path),
                    "BookPath" => Setting::BookPath(path),
                    "EvalFile" => Setting::EvalFile(path),
                    other => unreachable!("text option {other} has no setting"),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_insensitive() {
        assert_eq!(Options::parse("hash", Some("32")), Ok(Setting::Hash(32)));
        assert_eq!(
            Options::parse("move overhead", Some("0")),
            Ok(Setting::MoveOverhead(0))
        );
        assert_eq!(
            Options::parse("uci_variant", Some("Twelve")),
            Ok(Setting::Variant(Variant::Twelve))
        );
        assert_eq!(
            Options::parse("FLYING", Some("false")),
            Ok(Setting::Flying(false))
        );
        assert_eq!(Options::parse("clear hash", None), Ok(Setting::ClearHash));
        assert_eq!(
            Options::parse("skill level", Some("3")),
            Ok(Setting::SkillLevel(3))
        );
        assert_eq!(
            Options::parse("uci_limitstrength", Some("true")),
            Ok(Setting::LimitStrength(true))
        );
        assert_eq!(
            Options::parse("UCI_Elo", Some(&skill::MIN_ELO.to_string())),
            Ok(Setting::Elo(skill::MIN_ELO))
        );
        assert_eq!(
            Options::parse("ponder", Some("TRUE")),
            Ok(Setting::Ponder(true))
        );
        assert_eq!(
            Options::parse("Skill Seed", Some("42")),
            Ok(Setting::SkillSeed(42))
        );
    }

    #[test]
    fn every_option_parses_its_default() {
        for spec in TABLE {
            let default = match spec.kind {
                Kind::Spin { default, .. } => default.to_string(),
                Kind::Check { default } => default.to_string(),
                Kind::Combo { default, .. } => default.to_string(),
                Kind::Button => String::new(),
                Kind::Text { default } => default.to_string(),
            };
            assert!(
                Options::parse(spec.name, Some(&default)).is_ok(),
                "{}",
                spec.name
            );
        }
    }

    #[test]
    fn path_choices() {
        assert_eq!(
            Options::parse("TablePath", Some("<default>")),
            Ok(Setting::TablePath(PathChoice::Default))
        );
        assert_eq!(
            Options::parse("tablepath", Some("<empty>")),
            Ok(Setting::TablePath(PathChoice::Off))
        );
        assert_eq!(
            Options::parse("BookPath", Some(" /x/y.book ")),
            Ok(Setting::BookPath(PathChoice::Path("/x/y.book".into())))
        );
    }

    #[test]
    fn bad_values() {
        assert!(Options::parse("Hash", Some("0")).is_err());
        assert!(Options::parse("Hash", Some("65537")).is_err());
        assert!(Options::parse("Hash", Some("x")).is_err());
        assert!(Options::parse("Hash", None).is_err());
        assert!(Options::parse("Threads", Some("99999999999999999999999")).is_err());
        assert!(Options::parse("Flying", Some("yes")).is_err());
        assert!(Options::parse("UCI_Variant", Some("12")).is_err());
        assert!(Options::parse("Nope", Some("1")).is_err());
        assert!(Options::parse("Skill Level", Some("21")).is_err());
        assert!(Options::parse("UCI_Elo", Some("1")).is_err());
    }
}
