//! A second, deliberately naive implementation of RULES.md, written from the rules text alone.
//!
//! Nothing here calls the library: the board is a plain array of 24 optional colours in the
//! order of the position string (rank 7 down to rank 1, file a to g), the lines are typed in by
//! point name exactly as RULES.md lists them, adjacency is derived from those lines, and every
//! move is found by trying it out on a copy of the board. Moves are compared with the library
//! through their notation strings only. Speed is not a goal; obviousness is.
#![allow(dead_code)]

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// Point names in position-string order: rank 7 down to rank 1, each rank from file a to g.
pub const NAMES: [&str; 24] = [
    "a7", "d7", "g7", // rank 7
    "b6", "d6", "f6", // rank 6
    "c5", "d5", "e5", // rank 5
    "a4", "b4", "c4", "e4", "f4", "g4", // rank 4
    "c3", "d3", "e3", // rank 3
    "b2", "d2", "f2", // rank 2
    "a1", "d1", "g1", // rank 1
];

/// The 16 lines of RULES.md, copied from its text.
const SQUARE_LINES: &str = "a7 d7 g7, b6 d6 f6, c5 d5 e5, a4 b4 c4, e4 f4 g4, c3 d3 e3, b2 d2 f2, \
     a1 d1 g1, a7 a4 a1, b6 b4 b2, c5 c4 c3, d7 d6 d5, d3 d2 d1, e5 e4 e3, f6 f4 f2, g7 g4 g1";

/// The four diagonals of `twelve`, copied from its text.
const DIAGONALS: &str = "a7 b6 c5, g7 f6 e5, a1 b2 c3, g1 f2 e3";

/// The index of a point name in [`NAMES`].
pub fn idx(name: &str) -> usize {
    NAMES
        .iter()
        .position(|&n| n == name)
        .unwrap_or_else(|| panic!("no point {name}"))
}

/// Lines and adjacency of one variant.
pub struct Board {
    pub lines: Vec<[usize; 3]>,
    pub adjacent: [[bool; 24]; 24],
}

fn build(twelve: bool) -> Board {
    let mut text = SQUARE_LINES.to_string();
    if twelve {
        text.push_str(", ");
        text.push_str(DIAGONALS);
    }
    let mut lines = Vec::new();
    for line in text.split(',') {
        let pts: Vec<usize> = line.split_whitespace().map(idx).collect();
        assert_eq!(pts.len(), 3, "a line has three points: {line}");
        lines.push([pts[0], pts[1], pts[2]]);
    }
    // Two points are adjacent when they are neighbours on one drawn line.
    let mut adjacent = [[false; 24]; 24];
    for l in &lines {
        for k in 0..2 {
            adjacent[l[k]][l[k + 1]] = true;
            adjacent[l[k + 1]][l[k]] = true;
        }
    }
    Board { lines, adjacent }
}

/// The tables of a variant, built once.
pub fn board(twelve: bool) -> &'static Board {
    static NINE: OnceLock<Board> = OnceLock::new();
    static TWELVE: OnceLock<Board> = OnceLock::new();
    if twelve {
        TWELVE.get_or_init(|| build(true))
    } else {
        NINE.get_or_init(|| build(false))
    }
}

/// A side.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
    fn i(self) -> usize {
        match self {
            Side::White => 0,
            Side::Black => 1,
        }
    }
}

/// A move: a placement (`from` is `None`) or a slide/fly, with its removal.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct NMove {
    pub from: Option<usize>,
    pub to: usize,
    pub remove: Option<usize>,
}

impl fmt::Display for NMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(from) = self.from {
            write!(f, "{}-", NAMES[from])?;
        }
        write!(f, "{}", NAMES[self.to])?;
        if let Some(r) = self.remove {
            write!(f, "x{}", NAMES[r])?;
        }
        Ok(())
    }
}

/// How the game ended, by the naive reading of the rules.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum NEnd {
    /// The side to move lost on material (board + hand < 3).
    LostMaterial,
    /// The side to move has no legal move.
    LostBlocked,
    /// Twelve: the board is full and nobody can move.
    DrawFullBoard,
}

/// A naive game state.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct Naive {
    pub board: [Option<Side>; 24],
    pub hand: [u32; 2],
    pub to_move: Side,
    pub counter: u32,
    pub fullmove: u32,
    pub twelve: bool,
    pub flying: bool,
}

impl Naive {
    /// The start of a variant.
    pub fn start(twelve: bool, flying: bool) -> Naive {
        let n = if twelve { 12 } else { 9 };
        Naive {
            board: [None; 24],
            hand: [n, n],
            to_move: Side::White,
            counter: 0,
            fullmove: 1,
            twelve,
            flying,
        }
    }

    /// Reads a well-formed position string (panics on anything else: the library's parser is
    /// what gets tested for rejection).
    pub fn from_fen(s: &str, twelve: bool, flying: bool) -> Naive {
        let f: Vec<&str> = s.split(' ').collect();
        assert_eq!(f.len(), 6, "{s}");
        let cells: Vec<char> = f[0].chars().filter(|&c| c != '/').collect();
        assert_eq!(cells.len(), 24, "{s}");
        let mut board = [None; 24];
        for (i, c) in cells.into_iter().enumerate() {
            board[i] = match c {
                'W' => Some(Side::White),
                'B' => Some(Side::Black),
                '.' => None,
                _ => panic!("bad char in {s}"),
            };
        }
        Naive {
            board,
            hand: [f[2].parse().unwrap(), f[3].parse().unwrap()],
            to_move: if f[1] == "w" {
                Side::White
            } else {
                Side::Black
            },
            counter: f[4].parse().unwrap(),
            fullmove: f[5].parse().unwrap(),
            twelve,
            flying,
        }
    }

    /// The position string.
    pub fn to_fen(self) -> String {
        let mut s = String::new();
        for (i, c) in self.board.iter().enumerate() {
            if [3, 6, 9, 15, 18, 21].contains(&i) {
                s.push('/');
            }
            s.push(match c {
                Some(Side::White) => 'W',
                Some(Side::Black) => 'B',
                None => '.',
            });
        }
        let side = if self.to_move == Side::White {
            'w'
        } else {
            'b'
        };
        format!(
            "{s} {side} {} {} {} {}",
            self.hand[0], self.hand[1], self.counter, self.fullmove
        )
    }

    fn tables(&self) -> &'static Board {
        board(self.twelve)
    }

    /// Pieces of a side on the board.
    pub fn on_board(&self, s: Side) -> u32 {
        self.board.iter().filter(|&&c| c == Some(s)).count() as u32
    }

    /// Board plus hand.
    pub fn material(&self, s: Side) -> u32 {
        self.on_board(s) + self.hand[s.i()]
    }

    /// What repetition compares: board, side to move, hands.
    pub fn key(&self) -> ([Option<Side>; 24], Side, [u32; 2]) {
        (self.board, self.to_move, self.hand)
    }

    /// Whether `p` holds a piece of `s` that stands in a complete line of `s`.
    fn in_mill(board: &[Option<Side>; 24], lines: &[[usize; 3]], p: usize, s: Side) -> bool {
        lines
            .iter()
            .any(|l| l.contains(&p) && l.iter().all(|&q| board[q] == Some(s)))
    }

    /// The placements and slides/flies, before removals.
    fn base_moves(&self) -> Vec<(Option<usize>, usize)> {
        let me = self.to_move;
        let mut out = Vec::new();
        let empties: Vec<usize> = (0..24).filter(|&p| self.board[p].is_none()).collect();
        let own: Vec<usize> = (0..24).filter(|&p| self.board[p] == Some(me)).collect();
        if self.hand[me.i()] > 0 {
            for &t in &empties {
                out.push((None, t));
            }
        } else if self.flying && own.len() == 3 {
            for &f in &own {
                for &t in &empties {
                    out.push((Some(f), t));
                }
            }
        } else {
            for &f in &own {
                for &t in &empties {
                    if self.tables().adjacent[f][t] {
                        out.push((Some(f), t));
                    }
                }
            }
        }
        out
    }

    /// Whether the base move completes a line of the mover's pieces through its destination.
    pub fn closes_mill(&self, from: Option<usize>, to: usize) -> bool {
        let me = self.to_move;
        let mut b = self.board;
        if let Some(f) = from {
            b[f] = None;
        }
        b[to] = Some(me);
        Self::in_mill(&b, &self.tables().lines, to, me)
    }

    /// Every legal move, each removal choice a separate move; none when the side has lost on
    /// material.
    pub fn moves(&self) -> Vec<NMove> {
        let me = self.to_move;
        let them = me.other();
        if self.material(me) < 3 {
            return Vec::new();
        }
        let lines = &self.tables().lines;
        let theirs: Vec<usize> = (0..24).filter(|&p| self.board[p] == Some(them)).collect();
        let free: Vec<usize> = theirs
            .iter()
            .copied()
            .filter(|&p| !Self::in_mill(&self.board, lines, p, them))
            .collect();
        let removable = if free.is_empty() { theirs } else { free };
        let mut out = Vec::new();
        for (from, to) in self.base_moves() {
            if self.closes_mill(from, to) && !removable.is_empty() {
                for &r in &removable {
                    out.push(NMove {
                        from,
                        to,
                        remove: Some(r),
                    });
                }
            } else {
                out.push(NMove {
                    from,
                    to,
                    remove: None,
                });
            }
        }
        out
    }

    /// The legal moves as sorted notation strings.
    pub fn move_strings(&self) -> Vec<String> {
        let mut v: Vec<String> = self.moves().iter().map(|m| m.to_string()).collect();
        v.sort();
        v
    }

    /// Plays a move (assumed legal).
    pub fn play(&mut self, m: NMove) {
        let me = self.to_move;
        let mill = self.closes_mill(m.from, m.to);
        match m.from {
            Some(f) => {
                self.board[f] = None;
                // A slide or fly belongs to the moving phase: count it, or reset on a mill.
                self.counter = if mill { 0 } else { self.counter + 1 };
            }
            None => self.hand[me.i()] -= 1,
        }
        self.board[m.to] = Some(me);
        if let Some(r) = m.remove {
            self.board[r] = None;
        }
        if me == Side::Black {
            self.fullmove += 1;
        }
        self.to_move = me.other();
    }

    /// Plays the legal move written `s`; panics if there is none.
    pub fn play_str(&mut self, s: &str) {
        let m = self
            .moves()
            .into_iter()
            .find(|m| m.to_string() == s)
            .unwrap_or_else(|| panic!("{s} is not legal in {}", self.to_fen()));
        self.play(m);
    }

    /// The end of the game decided by the position alone, for the side to move.
    pub fn end(&self) -> Option<NEnd> {
        if self.material(self.to_move) < 3 {
            return Some(NEnd::LostMaterial);
        }
        if self.moves().is_empty() {
            if self.twelve && self.board.iter().all(|c| c.is_some()) {
                return Some(NEnd::DrawFullBoard);
            }
            return Some(NEnd::LostBlocked);
        }
        None
    }

    /// Counts the move sequences of `depth` plies.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|&m| {
                let mut next = *self;
                next.play(m);
                next.perft(depth - 1)
            })
            .sum()
    }

    /// Perft split by root move, keyed by notation.
    pub fn divide(&self, depth: u32) -> HashMap<String, u64> {
        self.moves()
            .iter()
            .map(|&m| {
                let mut next = *self;
                next.play(m);
                (m.to_string(), next.perft(depth - 1))
            })
            .collect()
    }
}
