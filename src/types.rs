//! The vocabulary of the game: colours, points, per-colour storage, variants and rule options.

use std::fmt;
use std::ops::{Index, IndexMut, Not};
use std::str::FromStr;

/// A side of the game. White moves first.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Color {
    /// The side that moves first.
    White = 0,
    /// The side that moves second.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// 0 for White, 1 for Black: the index into per-colour arrays.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The opponent.
    #[inline(always)]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The letter used on the board of a position string: `W` or `B`.
    pub const fn piece_char(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }

    /// The letter used for the side to move in a position string: `w` or `b`.
    pub const fn side_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        self.other()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

/// A value for each colour, indexed by [`Color`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ByColor<T>(pub [T; 2]);

impl<T> ByColor<T> {
    /// Builds the pair from White's and Black's values.
    pub const fn new(white: T, black: T) -> Self {
        ByColor([white, black])
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, c: Color) -> &T {
        &self.0[c.index()]
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    #[inline(always)]
    fn index_mut(&mut self, c: Color) -> &mut T {
        &mut self.0[c.index()]
    }
}

/// One of the 24 points of the board.
///
/// Points are numbered rank by rank from rank 1 upwards, each rank from file a to g:
/// `a1=0 d1=1 g1=2 b2=3 d2=4 f2=5 c3=6 d3=7 e3=8 a4=9 b4=10 c4=11 e4=12 f4=13 g4=14
/// c5=15 d5=16 e5=17 b6=18 d6=19 f6=20 a7=21 d7=22 g7=23`. The type cannot hold 24 or more.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Point(u8);

/// The names of the points, by index.
pub const POINT_NAMES: [&str; 24] = [
    "a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3", "a4", "b4", "c4", "e4", "f4", "g4", "c5",
    "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7",
];

impl Point {
    /// Number of points on the board.
    pub const COUNT: usize = 24;

    /// The point with this index, if it is below 24.
    #[inline]
    pub const fn new(index: usize) -> Option<Point> {
        if index < 24 {
            Some(Point(index as u8))
        } else {
            None
        }
    }

    /// The point with this index; the caller guarantees `index < 24`.
    #[inline(always)]
    pub const fn from_index(index: usize) -> Point {
        debug_assert!(index < 24);
        Point(index as u8)
    }

    /// The index 0..24.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The name, such as `d6`.
    pub const fn name(self) -> &'static str {
        POINT_NAMES[self.0 as usize]
    }

    /// All points in index order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..24).map(Point::from_index)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a text is not a point name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePointError(pub String);

impl fmt::Display for ParsePointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a point of the board (a1..g7 on the drawn lines)",
            self.0
        )
    }
}

impl std::error::Error for ParsePointError {}

impl FromStr for Point {
    type Err = ParsePointError;
    fn from_str(s: &str) -> Result<Point, ParsePointError> {
        POINT_NAMES
            .iter()
            .position(|&n| n == s)
            .map(Point::from_index)
            .ok_or_else(|| ParsePointError(s.to_string()))
    }
}

/// The two games the engine plays.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Variant {
    /// Nine Men's Morris: 9 pieces each, 16 lines.
    #[default]
    Nine,
    /// Twelve Men's Morris (Morabaraba): 12 pieces each, 16 lines plus 4 diagonals.
    Twelve,
}

impl Variant {
    /// Pieces each side starts with in hand.
    #[inline(always)]
    pub const fn pieces(self) -> u8 {
        match self {
            Variant::Nine => 9,
            Variant::Twelve => 12,
        }
    }

    /// The protocol name: `nine` or `twelve`.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Nine => "nine",
            Variant::Twelve => "twelve",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a text is not a variant name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseVariantError(pub String);

impl fmt::Display for ParseVariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown variant '{}' (expected nine or twelve)", self.0)
    }
}

impl std::error::Error for ParseVariantError {}

impl FromStr for Variant {
    type Err = ParseVariantError;
    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        match s.to_ascii_lowercase().as_str() {
            "nine" | "9" => Ok(Variant::Nine),
            "twelve" | "12" | "morabaraba" => Ok(Variant::Twelve),
            _ => Err(ParseVariantError(s.to_string())),
        }
    }
}

/// The rule set a game is played under: the variant and whether flying is allowed.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
    /// Board lines and piece count.
    pub variant: Variant,
    /// Whether a side with exactly three pieces (none in hand) may move to any empty point.
    pub flying: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            variant: Variant::Nine,
            flying: true,
        }
    }
}

impl Rules {
    /// Rules for a variant with flying on.
    pub const fn new(variant: Variant, flying: bool) -> Rules {
        Rules { variant, flying }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (flying {})",
            self.variant,
            if self.flying { "on" } else { "off" }
        )
    }
}
