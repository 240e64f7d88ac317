//! The position: board, side to move, hands, counters and hash; position strings; playing moves;
//! the rule-based end of the game.

use crate::bitboard::Bitboard;
use crate::movegen;
use crate::moves::{Move, MoveList};
use crate::topology::Topology;
use crate::types::{ByColor, Color, Point, Rules, Variant};
use crate::zobrist;
use std::fmt;

/// The points of each rank of a position string, ranks 7 down to 1: (first index, length).
const RANKS: [(usize, usize); 7] = [(21, 3), (18, 3), (15, 3), (9, 6), (6, 3), (3, 3), (0, 3)];

/// Plies without a mill after which the game is drawn.
pub const HUNDRED_PLIES: u16 = 100;

/// A state of the game as RULES.md defines it, plus the rules it is played under.
#[derive(Clone, Copy)]
pub struct Position {
    board: ByColor<Bitboard>,
    hand: ByColor<u8>,
    side: Color,
    rule50: u16,
    fullmove: u32,
    hash: u64,
    rules: Rules,
    topo: &'static Topology,
}

impl PartialEq for Position {
    fn eq(&self, o: &Position) -> bool {
        self.board == o.board
            && self.hand == o.hand
            && self.side == o.side
            && self.rule50 == o.rule50
            && self.fullmove == o.fullmove
            && self.hash == o.hash
            && self.rules == o.rules
    }
}

impl Eq for Position {}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} [{}])", self.to_fen(), self.rules)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_fen())
    }
}

/// What [`Position::make`] needs to take a move back.
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    rule50: u16,
}

/// Why a game ended.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    /// The loser had fewer than three pieces on the board and in hand.
    Material,
    /// The loser had no legal move.
    Blocked,
    /// Twelve only: all 24 points were occupied when placing ended.
    FullBoard,
    /// The same position occurred for the third time.
    Threefold,
    /// 100 plies of the moving phase passed without a mill.
    HundredPlies,
}

impl EndReason {
    /// The name used by the protocol and the tools.
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::Material => "material",
            EndReason::Blocked => "blocked",
            EndReason::FullBoard => "fullboard",
            EndReason::Threefold => "threefold",
            EndReason::HundredPlies => "hundredply",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a game ended.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// One side won.
    Win {
        /// The winner.
        winner: Color,
        /// Why.
        reason: EndReason,
    },
    /// Nobody won.
    Draw {
        /// Why.
        reason: EndReason,
    },
}

impl Outcome {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub const fn result_str(self) -> &'static str {
        match self {
            Outcome::Win {
                winner: Color::White,
                ..
            } => "1-0",
            Outcome::Win {
                winner: Color::Black,
                ..
            } => "0-1",
            Outcome::Draw { .. } => "1/2-1/2",
        }
    }

    /// Why the game ended.
    pub const fn reason(self) -> EndReason {
        match self {
            Outcome::Win { reason, .. } | Outcome::Draw { reason } => reason,
        }
    }

    /// The winner, if any.
    pub const fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw { .. } => None,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.result_str(), self.reason())
    }
}

/// Why a position string was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsePositionError {
    /// Not six space-separated fields.
    FieldCount(usize),
    /// The board field is malformed.
    Board(String),
    /// The side to move is not `w` or `b`.
    Side(String),
    /// A numeric field is not a number in range.
    Number {
        /// Which field.
        field: &'static str,
        /// The text found.
        value: String,
    },
    /// The counts are impossible in any game of the variant.
    Unreachable(String),
}

impl fmt::Display for ParsePositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParsePositionError::FieldCount(n) => write!(
                f,
                "a position string has 6 fields (board side white-hand black-hand plies move), found {n}"
            ),
            ParsePositionError::Board(s) => write!(f, "bad board field: {s}"),
            ParsePositionError::Side(s) => {
                write!(f, "bad side to move '{s}' (expected w or b)")
            }
            ParsePositionError::Number { field, value } => {
                write!(f, "bad {field} '{value}'")
            }
            ParsePositionError::Unreachable(s) => write!(f, "unreachable position: {s}"),
        }
    }
}

impl std::error::Error for ParsePositionError {}

/// Why a move cannot be played in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalMove {
    /// The side to move has already lost: no move is possible.
    GameOver,
    /// Pieces are still in hand, so the turn must be a placement.
    MustPlace,
    /// No pieces are left in hand, so the turn must move a piece on the board.
    MustMove,
    /// The destination is not empty.
    Occupied(Point),
    /// The origin does not hold a piece of the side to move.
    NotOwnPiece(Point),
    /// The destination is not adjacent to the origin and the side cannot fly.
    NotAdjacent(Point, Point),
    /// The move closes a mill, so it must name a piece to remove.
    RemovalRequired,
    /// The move closes no mill (or there is nothing to take), so it may not remove.
    RemovalNotAllowed,
    /// The named removal is not an opponent piece.
    NotOpponentPiece(Point),
    /// The named removal stands in a mill while other opponent pieces do not.
    Protected(Point),
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::GameOver => write!(f, "the game is over, no move is possible"),
            IllegalMove::MustPlace => write!(f, "pieces are in hand, the move must be a placement"),
            IllegalMove::MustMove => {
                write!(f, "no pieces in hand, the move must be a slide or fly")
            }
            IllegalMove::Occupied(p) => write!(f, "{p} is occupied"),
            IllegalMove::NotOwnPiece(p) => write!(f, "no piece of the side to move on {p}"),
            IllegalMove::NotAdjacent(a, b) => {
                write!(f, "{a} and {b} are not adjacent and the side cannot fly")
            }
            IllegalMove::RemovalRequired => {
                write!(
                    f,
                    "the move closes a mill and must name a removal (like d6xa1)"
                )
            }
            IllegalMove::RemovalNotAllowed => {
                write!(f, "the move closes no mill, so it cannot remove a piece")
            }
            IllegalMove::NotOpponentPiece(p) => write!(f, "{p} is not an opponent piece"),
            IllegalMove::Protected(p) => write!(
                f,
                "{p} stands in a mill and other opponent pieces do not, so it is protected"
            ),
        }
    }
}

impl std::error::Error for IllegalMove {}

fn parse_num<T: std::str::FromStr>(field: &'static str, s: &str) -> Result<T, ParsePositionError> {
    // Leading '+' or '-' are rejected: the format has plain digits only.
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParsePositionError::Number {
            field,
            value: s.to_string(),
        });
    }
    s.parse().map_err(|_| ParsePositionError::Number {
        field,
        value: s.to_string(),
    })
}

impl Position {
    /// The start position of a rule set.
    pub fn new(rules: Rules) -> Position {
        let n = rules.variant.pieces();
        let mut p = Position {
            board: ByColor::new(Bitboard::EMPTY, Bitboard::EMPTY),
            hand: ByColor::new(n, n),
            side: Color::White,
            rule50: 0,
            fullmove: 1,
            hash: 0,
            rules,
            topo: Topology::of(rules.variant),
        };
        p.hash = p.compute_hash();
        p
    }

    /// Parses a position string (RULES.md) for a rule set, rejecting malformed strings and counts
    /// that no game of the variant can reach.
    pub fn from_fen(s: &str, rules: Rules) -> Result<Position, ParsePositionError> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        if fields.len() != 6 {
            return Err(ParsePositionError::FieldCount(fields.len()));
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 7 {
            return Err(ParsePositionError::Board(format!(
                "expected 7 ranks separated by '/', found {}",
                ranks.len()
            )));
        }
        let mut board = ByColor::new(Bitboard::EMPTY, Bitboard::EMPTY);
        for (r, (&(start, len), text)) in RANKS.iter().zip(&ranks).enumerate() {
            let rank_no = 7 - r;
            if text.chars().count() != len {
                return Err(ParsePositionError::Board(format!(
                    "rank {rank_no} needs {len} points, found '{text}'"
                )));
            }
            for (i, ch) in text.chars().enumerate() {
                let p = Point::from_index(start + i);
                match ch {
                    'W' => board[Color::White] = board[Color::White].with(p),
                    'B' => board[Color::Black] = board[Color::Black].with(p),
                    '.' => {}
                    _ => {
                        return Err(ParsePositionError::Board(format!(
                            "'{ch}' on {p} (expected W, B or .)"
                        )))
                    }
                }
            }
        }
        let side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(ParsePositionError::Side(other.to_string())),
        };
        let n = rules.variant.pieces();
        let hw: u8 = parse_num("white pieces in hand", fields[2])?;
        let hb: u8 = parse_num("black pieces in hand", fields[3])?;
        let rule50: u16 = parse_num("plies since the last mill", fields[4])?;
        let fullmove: u32 = parse_num("full-move number", fields[5])?;
        let unreachable = |m: String| Err(ParsePositionError::Unreachable(m));
        for (c, h) in [(Color::White, hw), (Color::Black, hb)] {
            if h > n {
                return unreachable(format!("{c} has {h} pieces in hand, {rules} has {n}"));
            }
            let on_board = board[c].count() as u8;
            if on_board + h > n {
                return unreachable(format!(
                    "{c} has {on_board} on the board and {h} in hand, more than the {n} of {}",
                    rules.variant
                ));
            }
        }
        let alternation_ok = match side {
            Color::White => hw == hb,
            Color::Black => hb == hw + 1 || (hw == 0 && hb == 0),
        };
        if !alternation_ok {
            return unreachable(format!(
                "hands {hw} and {hb} with {side} to move break strict alternation"
            ));
        }
        if fullmove == 0 {
            return Err(ParsePositionError::Number {
                field: "full-move number (it starts at 1)",
                value: fields[5].to_string(),
            });
        }
        let waiting = side.other();
        let waiting_material = board[waiting].count() + [hw, hb][waiting.index()] as u32;
        if waiting_material < 3 {
            return unreachable(format!(
                "{waiting} has {waiting_material} pieces, so it lost before its last move"
            ));
        }
        let placing = hw > 0 || hb > 0;
        let plies = 2 * (fullmove as u64 - 1) + (side == Color::Black) as u64;
        if placing {
            if rule50 != 0 {
                return unreachable(format!(
                    "the ply counter is {rule50}, but it stays 0 while pieces are in hand"
                ));
            }
            let placed = (2 * n - hw - hb) as u64;
            if plies != placed {
                return unreachable(format!(
                    "move number {fullmove} does not match {placed} pieces placed"
                ));
            }
        } else {
            if rule50 > HUNDRED_PLIES {
                return unreachable(format!(
                    "the ply counter is {rule50}; the game ends at {HUNDRED_PLIES}"
                ));
            }
            let moving_plies = plies.checked_sub(2 * n as u64);
            if moving_plies.is_none_or(|mp| mp < rule50 as u64) {
                return unreachable(format!(
                    "move number {fullmove} leaves too few moving-phase plies for the counter {rule50}"
                ));
            }
        }
        let mut p = Position {
            board,
            hand: ByColor::new(hw, hb),
            side,
            rule50,
            fullmove,
            hash: 0,
            rules,
            topo: Topology::of(rules.variant),
        };
        p.hash = p.compute_hash();
        Ok(p)
    }

    /// The position with these piece sets (bit `i`: point `i`), hands and side to move, with
    /// the 100-ply counter at 0 and the move number that the pieces placed imply: what the
    /// table tools need to turn a slot into a position. Checked as [`Position::from_fen`] checks.
    pub fn from_sets(
        rules: Rules,
        white: u32,
        black: u32,
        hw: u8,
        hb: u8,
        side: Color,
    ) -> Result<Position, ParsePositionError> {
        if white & black != 0 || (white | black) >> 24 != 0 {
            return Err(ParsePositionError::Board(
                "the two sides' sets overlap or leave the board".into(),
            ));
        }
        let p = Position::assemble(rules, white, black, hw, hb, side);
        Position::from_fen(&p.to_fen(), rules)
    }

    /// The fields of [`Position::from_sets`], unchecked and without the hash.
    fn assemble(rules: Rules, white: u32, black: u32, hw: u8, hb: u8, side: Color) -> Position {
        let n = rules.variant.pieces();
        let placed = (2 * n).saturating_sub(hw.saturating_add(hb)) as u32;
        let plies = if hw > 0 || hb > 0 {
            placed
        } else {
            2 * n as u32 + (side == Color::Black) as u32
        };
        Position {
            board: ByColor::new(Bitboard(white & 0xff_ffff), Bitboard(black & 0xff_ffff)),
            hand: ByColor::new(hw, hb),
            side,
            rule50: 0,
            fullmove: plies.saturating_sub((side == Color::Black) as u32) / 2 + 1,
            hash: 0,
            rules,
            topo: Topology::of(rules.variant),
        }
    }

    /// [`Position::from_sets`] for sets that a table's index produced, so valid by
    /// construction: no text round trip (a sampler makes millions a second). Debug builds
    /// check it against the checked path.
    pub fn from_sets_trusted(
        rules: Rules,
        white: u32,
        black: u32,
        hw: u8,
        hb: u8,
        side: Color,
    ) -> Position {
        let mut p = Position::assemble(rules, white, black, hw, hb, side);
        p.hash = p.compute_hash();
        debug_assert_eq!(
            Ok(p),
            Position::from_sets(rules, white, black, hw, hb, side),
            "sets {white:x} {black:x} hands {hw} {hb}"
        );
        p
    }

    /// The position string of RULES.md.
    pub fn to_fen(&self) -> String {
        let mut s = String::with_capacity(48);
        for (r, &(start, len)) in RANKS.iter().enumerate() {
            if r > 0 {
                s.push('/');
            }
            for i in start..start + len {
                s.push(match self.piece_at(Point::from_index(i)) {
                    Some(c) => c.piece_char(),
                    None => '.',
                });
            }
        }
        s.push(' ');
        s.push(self.side.side_char());
        s.push_str(&format!(
            " {} {} {} {}",
            self.hand[Color::White],
            self.hand[Color::Black],
            self.rule50,
            self.fullmove
        ));
        s
    }

    /// A drawing of the board for people, as in RULES.md.
    pub fn diagram(&self) -> String {
        const ART: &str = "\
7 a ----------- d ----------- g
  |             |             |
6 |    b ------ d ------ f    |
  |    |        |        |    |
5 |    |    c - d - e    |    |
  |    |    |       |    |    |
4 a -- b -- c       e -- f -- g
  |    |    |       |    |    |
3 |    |    c - d - e    |    |
  |    |        |        |    |
2 |    b ------ d ------ f    |
  |             |             |
1 a ----------- d ----------- g
  a    b    c   d   e    f    g";
        let mut out = String::new();
        let mut rank_points = RANKS.iter();
        for line in ART.lines() {
            let first = line.as_bytes()[0];
            if first.is_ascii_digit() && !line.starts_with("  ") {
                let &(start, _) = rank_points.next().expect("seven ranks");
                let mut idx = start;
                for (k, ch) in line.chars().enumerate() {
                    if k > 0 && ch.is_ascii_lowercase() {
                        out.push(match self.piece_at(Point::from_index(idx)) {
                            Some(Color::White) => 'W',
                            Some(Color::Black) => 'B',
                            None => '.',
                        });
                        idx += 1;
                    } else {
                        out.push(ch);
                    }
                }
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
        out
    }

    /// The rule set.
    #[inline(always)]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The variant.
    #[inline(always)]
    pub fn variant(&self) -> Variant {
        self.rules.variant
    }

    /// The variant's lines and adjacency.
    #[inline(always)]
    pub fn topology(&self) -> &'static Topology {
        self.topo
    }

    /// Pieces of a colour on the board.
    #[inline(always)]
    pub fn pieces(&self, c: Color) -> Bitboard {
        self.board[c]
    }

    /// All occupied points.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.board[Color::White] | self.board[Color::Black]
    }

    /// All empty points.
    #[inline(always)]
    pub fn empty(&self) -> Bitboard {
        !self.occupied()
    }

    /// The colour on a point, if any.
    pub fn piece_at(&self, p: Point) -> Option<Color> {
        if self.board[Color::White].contains(p) {
            Some(Color::White)
        } else if self.board[Color::Black].contains(p) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// Pieces of a colour in hand.
    #[inline(always)]
    pub fn in_hand(&self, c: Color) -> u8 {
        self.hand[c]
    }

    /// Pieces on the board and in hand.
    #[inline(always)]
    pub fn material(&self, c: Color) -> u32 {
        self.board[c].count() + self.hand[c] as u32
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Plies of the moving phase since the last mill.
    #[inline(always)]
    pub fn rule50(&self) -> u16 {
        self.rule50
    }

    /// The full-move number.
    #[inline(always)]
    pub fn fullmove(&self) -> u32 {
        self.fullmove
    }

    /// The Zobrist key (board, side to move, hands).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Whether both hands are empty, so pieces move rather than get placed.
    #[inline(always)]
    pub fn is_moving_phase(&self) -> bool {
        self.hand.0 == [0, 0]
    }

    /// Whether colour `c` may fly right now (three pieces, none in hand, flying on).
    #[inline(always)]
    pub fn can_fly(&self, c: Color) -> bool {
        self.rules.flying && self.hand[c] == 0 && self.board[c].count() == 3
    }

    /// The key recomputed from nothing; equals [`Position::hash`] in every reachable state.
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for c in Color::ALL {
            for p in self.board[c] {
                h ^= zobrist::piece(c, p);
            }
            h ^= zobrist::hand(c, self.hand[c]);
        }
        if self.side == Color::Black {
            h ^= zobrist::SIDE;
        }
        h
    }

    /// An exact key of what repetition compares (board, side, hands), free of hash collisions.
    #[inline]
    pub fn repetition_key(&self) -> u64 {
        self.board[Color::White].0 as u64
            | (self.board[Color::Black].0 as u64) << 24
            | (self.side as u64) << 48
            | (self.hand[Color::White] as u64) << 49
            | (self.hand[Color::Black] as u64) << 53
    }

    /// The key the position will have after `m`, without playing it (for prefetching and
    /// repetition checks).
    #[inline]
    pub fn hash_after(&self, m: Move) -> u64 {
        let us = self.side;
        let mut h = self.hash ^ zobrist::SIDE ^ zobrist::piece(us, m.to());
        match m.from() {
            Some(f) => h ^= zobrist::piece(us, f),
            None => {
                let n = self.hand[us];
                h ^= zobrist::hand(us, n) ^ zobrist::hand(us, n - 1);
            }
        }
        if let Some(r) = m.removal() {
            h ^= zobrist::piece(us.other(), r);
        }
        h
    }

    /// Plays a move known to be legal; returns what [`Position::unmake`] needs.
    #[inline]
    pub fn make(&mut self, m: Move) -> Undo {
        let undo = Undo {
            rule50: self.rule50,
        };
        let us = self.side;
        let them = us.other();
        let to = m.to();
        self.hash ^= zobrist::piece(us, to) ^ zobrist::SIDE;
        match m.from() {
            Some(from) => {
                self.board[us] = self.board[us].without(from).with(to);
                self.hash ^= zobrist::piece(us, from);
                // A slide implies the moving phase (strict alternation empties both hands). A
                // mill resets the count; it removes a piece unless the opponent has none left
                // on the board, which only a hand-written position can show.
                let mill = m.removal().is_some()
                    || (self.board[them].is_empty() && self.topo.closes_mill(self.board[us], to));
                self.rule50 = if mill { 0 } else { self.rule50 + 1 };
            }
            None => {
                self.board[us] = self.board[us].with(to);
                let n = self.hand[us];
                self.hash ^= zobrist::hand(us, n) ^ zobrist::hand(us, n - 1);
                self.hand[us] = n - 1;
            }
        }
        if let Some(r) = m.removal() {
            self.board[them] = self.board[them].without(r);
            self.hash ^= zobrist::piece(them, r);
        }
        if us == Color::Black {
            self.fullmove += 1;
        }
        self.side = them;
        undo
    }

    /// Takes back `m`, which was the last move made, restoring the position exactly.
    #[inline]
    pub fn unmake(&mut self, m: Move, undo: Undo) {
        let them = self.side;
        let us = them.other();
        self.side = us;
        if us == Color::Black {
            self.fullmove -= 1;
        }
        if let Some(r) = m.removal() {
            self.board[them] = self.board[them].with(r);
            self.hash ^= zobrist::piece(them, r);
        }
        let to = m.to();
        match m.from() {
            Some(from) => {
                self.board[us] = self.board[us].without(to).with(from);
                self.hash ^= zobrist::piece(us, from);
            }
            None => {
                self.board[us] = self.board[us].without(to);
                let n = self.hand[us];
                self.hash ^= zobrist::hand(us, n) ^ zobrist::hand(us, n + 1);
                self.hand[us] = n + 1;
            }
        }
        self.hash ^= zobrist::piece(us, to) ^ zobrist::SIDE;
        self.rule50 = undo.rule50;
    }

    /// Passes the turn without moving: the search's null move. Not a move of the game (strict
    /// alternation breaks while pieces are in hand); undo it with a second call.
    #[inline]
    pub fn toggle_side(&mut self) {
        self.side = self.side.other();
        self.hash ^= zobrist::SIDE;
    }

    /// Plays a move known to be legal (the fast path for search and perft).
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        self.make(m);
    }

    /// Whether `m` closes a mill for the side to move (ignoring its removal field).
    #[inline]
    pub fn closes_mill(&self, m: Move) -> bool {
        let us = self.side;
        let mut own = self.board[us];
        if let Some(f) = m.from() {
            own = own.without(f);
        }
        self.topo.closes_mill(own.with(m.to()), m.to())
    }

    /// Checks `m` against the rules and says why it is illegal if it is.
    pub fn check(&self, m: Move) -> Result<(), IllegalMove> {
        let us = self.side;
        let them = us.other();
        if self.material(us) < 3 || !movegen::has_legal_move(self) {
            return Err(IllegalMove::GameOver);
        }
        let to = m.to();
        match m.from() {
            None if self.hand[us] == 0 => return Err(IllegalMove::MustMove),
            Some(_) if self.hand[us] > 0 => return Err(IllegalMove::MustPlace),
            Some(from) => {
                if !self.board[us].contains(from) {
                    return Err(IllegalMove::NotOwnPiece(from));
                }
                if !self.can_fly(us) && !self.topo.adjacent[from.index()].contains(to) {
                    return Err(IllegalMove::NotAdjacent(from, to));
                }
            }
            None => {}
        }
        if !self.empty().contains(to) {
            return Err(IllegalMove::Occupied(to));
        }
        let mill = self.closes_mill(m);
        let opp = self.board[them];
        match m.removal() {
            None if mill && opp.is_nonempty() => Err(IllegalMove::RemovalRequired),
            None => Ok(()),
            Some(_) if !mill || opp.is_empty() => Err(IllegalMove::RemovalNotAllowed),
            Some(r) if !opp.contains(r) => Err(IllegalMove::NotOpponentPiece(r)),
            Some(r) if !self.topo.removable(opp).contains(r) => Err(IllegalMove::Protected(r)),
            Some(_) => Ok(()),
        }
    }

    /// Plays `m` if it is legal; otherwise leaves the position unchanged and says why not.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        self.check(m)?;
        self.make(m);
        Ok(())
    }

    /// The legal moves, every removal choice a separate move; empty when the side has lost.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        movegen::generate(self, &mut list);
        list
    }

    /// The end of the game by the rules of the position alone (material, no move, full board),
    /// checked for the side to move. Repetition and the 100-ply rule need the game's history:
    /// see [`crate::game::Game::outcome`].
    pub fn outcome(&self) -> Option<Outcome> {
        let us = self.side;
        if self.material(us) < 3 {
            return Some(Outcome::Win {
                winner: us.other(),
                reason: EndReason::Material,
            });
        }
        if !movegen::has_legal_move(self) {
            if self.rules.variant == Variant::Twelve && self.empty().is_empty() {
                return Some(Outcome::Draw {
                    reason: EndReason::FullBoard,
                });
            }
            return Some(Outcome::Win {
                winner: us.other(),
                reason: EndReason::Blocked,
            });
        }
        None
    }
}
