//! The data directory: where the engine, `mill-gui` and the tools look for endgame tables and
//! books when no path is given, and where `mill-tb setup` puts them.
//!
//! Its place, first match wins:
//!
//! 1. `$MILLSTONE_DATA`, when set and not empty;
//! 2. the platform's data directory plus `millstone`: on Linux `$XDG_DATA_HOME/millstone`, else
//!    `~/.local/share/millstone`; on macOS `~/Library/Application Support/millstone`; on Windows
//!    `%APPDATA%\millstone` (the [`directories`] crate knows each platform's rule).
//!
//! Its layout:
//!
//! ```text
//! <data>/tables/                       every table file, all rule sets together (their names
//!                                      carry the rules: nine-fly-3v4.mtb, nine-fly-p17-8v9.mpt)
//! <data>/books/<variant>-<fly|nofly>.book   a book of `mill-tb book`, one per rule set
//! ```
//!
//! An explicit path (`TablePath`, `BookPath`, `--dir`, `--tables`, `--book`) always wins; the
//! engine's `<empty>` turns tables or the book off.

use crate::types::Rules;
use std::path::{Path, PathBuf};

/// The environment variable that names the data directory.
pub const ENV: &str = "MILLSTONE_DATA";

/// Where the data directory's place came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `$MILLSTONE_DATA`.
    Env,
    /// The platform's data directory.
    Platform,
}

impl Source {
    /// How `info string` lines and tools name it.
    pub fn describe(self) -> &'static str {
        match self {
            Source::Env => "from MILLSTONE_DATA",
            Source::Platform => "the platform default",
        }
    }
}

/// The data directory and where its place came from; `None` when neither the variable nor a
/// home directory is known (then only explicit paths work).
pub fn root() -> Option<(PathBuf, Source)> {
    if let Some(v) = std::env::var_os(ENV).filter(|v| !v.is_empty()) {
        return Some((PathBuf::from(v), Source::Env));
    }
    directories::BaseDirs::new().map(|b| (b.data_dir().join("millstone"), Source::Platform))
}

/// The directory of the tables inside a data directory.
pub fn tables_in(root: &Path) -> PathBuf {
    root.join("tables")
}

/// The book file of `rules` inside a data directory.
pub fn book_in(root: &Path, rules: Rules) -> PathBuf {
    root.join("books").join(book_file_name(rules))
}

/// The book's file name for `rules`: `nine-fly.book`, `twelve-nofly.book`.
pub fn book_file_name(rules: Rules) -> String {
    format!(
        "{}-{}.book",
        rules.variant.name(),
        if rules.flying { "fly" } else { "nofly" }
    )
}

/// The default table directory: `<data>/tables`.
pub fn default_tables() -> Option<PathBuf> {
    root().map(|(r, _)| tables_in(&r))
}

/// The default book of `rules`: `<data>/books/<variant>-<fly|nofly>.book`.
pub fn default_book(rules: Rules) -> Option<PathBuf> {
    root().map(|(r, _)| book_in(&r, rules))
}

/// The table directory to use: `explicit` if given, else the default one (which need not
/// exist).
pub fn tables_or_default(explicit: Option<PathBuf>) -> Result<PathBuf, String> {
    explicit.or_else(default_tables).ok_or_else(|| {
        format!("no table directory: give one, or set {ENV} (no home directory is known)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Variant;

    #[test]
    fn layout() {
        let r = Path::new("/d");
        assert_eq!(tables_in(r), PathBuf::from("/d/tables"));
        assert_eq!(
            book_in(r, Rules::new(Variant::Nine, true)),
            PathBuf::from("/d/books/nine-fly.book")
        );
        assert_eq!(
            book_file_name(Rules::new(Variant::Twelve, false)),
            "twelve-nofly.book"
        );
    }
}
