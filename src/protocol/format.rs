//! Every line the engine writes, formatted in one place so that the protocol's text has a single
//! source (protocol.md describes exactly these lines).

use super::options::{Kind, Spec, TABLE};
use crate::bench::BenchResult;
use crate::eval;
use crate::game::Game;
use crate::moves::Move;
use crate::position::{Outcome, Position};
use crate::search::{wdl, Info, Score};
use crate::tt::Bound;
use std::fmt::Write;

/// The engine's name as `id name` gives it.
pub fn engine_name() -> String {
    format!("Millstone {}", env!("CARGO_PKG_VERSION"))
}

/// The `option` line of one table row.
pub fn option_line(spec: &Spec) -> String {
    let mut s = format!("option name {} type ", spec.name);
    match spec.kind {
        Kind::Spin { default, min, max } => {
            write!(s, "spin default {default} min {min} max {max}").unwrap()
        }
        Kind::Check { default } => write!(s, "check default {default}").unwrap(),
        Kind::Combo { default, vars } => {
            write!(s, "combo default {default}").unwrap();
            for v in vars {
                write!(s, " var {v}").unwrap();
            }
        }
        Kind::Button => s.push_str("button"),
        Kind::Text { default } => write!(s, "string default {default}").unwrap(),
    }
    s
}

/// The answer to `uci` (`ugi` when `ugi` is set): identity, options, and `uciok`/`ugiok`.
pub fn handshake(ugi: bool) -> Vec<String> {
    let mut v = vec![
        format!("id name {}", engine_name()),
        "id author The Millstone developers".to_string(),
    ];
    v.extend(TABLE.iter().map(option_line));
    v.push(if ugi { "ugiok" } else { "uciok" }.to_string());
    v
}

/// The answer to `isready`.
pub fn readyok() -> String {
    "readyok".to_string()
}

/// The move a search ends with; `0000` when there is none.
pub fn bestmove(m: Option<Move>, ponder: Option<Move>) -> String {
    match (m, ponder) {
        (Some(m), Some(p)) => format!("bestmove {m} ponder {p}"),
        (Some(m), None) => format!("bestmove {m}"),
        (None, _) => "bestmove 0000".to_string(),
    }
}

/// The root move the search has started on, in a long search.
pub fn currmove(depth: i32, m: Move, number: usize) -> String {
    format!("info depth {depth} currmove {m} currmovenumber {number}")
}

/// One root move's count while `perft` runs.
pub fn perft_move(m: Move, n: u64) -> String {
    format!("{m}: {n}")
}

/// One position's line while `bench` runs.
pub fn bench_line((fen, best, nodes): &(String, String, u64)) -> String {
    format!("{fen}: bestmove {best} nodes {nodes}")
}

/// A free-text line for people.
pub fn info_string(msg: &str) -> String {
    // One message must stay one line whatever text it quotes.
    let clean: String = msg
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("info string {clean}")
}

/// The one line that answers a bad command.
pub fn error(msg: &dyn std::fmt::Display) -> String {
    info_string(&format!("error: {msg}"))
}

/// A `query` answer.
pub fn response(value: &str) -> String {
    if value.is_empty() {
        "response".to_string()
    } else {
        format!("response {value}")
    }
}

/// The score part of an `info` line: `cp X` or `mate N`.
fn score(s: i32) -> String {
    match Score::from_internal(s) {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    }
}

/// One search line.
pub fn info(i: &Info, show_wdl: bool) -> String {
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {}",
        i.depth,
        i.seldepth,
        i.multipv,
        score(i.score)
    );
    match i.bound {
        Bound::Lower => s.push_str(" lowerbound"),
        Bound::Upper => s.push_str(" upperbound"),
        Bound::Exact | Bound::None => {}
    }
    if show_wdl {
        // A proven result is certain: a proven draw is `0 1000 0`, not the model's guess for
        // an even score.
        let (w, d, l) = match (i.proven, i.score.signum()) {
            (true, 1) => (1000, 0, 0),
            (true, -1) => (0, 0, 1000),
            (true, _) => (0, 1000, 0),
            (false, _) => wdl(i.score),
        };
        write!(s, " wdl {w} {d} {l}").unwrap();
    }
    write!(
        s,
        " nodes {} nps {} hashfull {} tbhits {} time {}",
        i.nodes,
        i.nps,
        i.hashfull,
        i.tbhits,
        i.time.as_millis()
    )
    .unwrap();
    if !i.pv.is_empty() {
        s.push_str(" pv");
        for m in &i.pv {
            write!(s, " {m}").unwrap();
        }
    }
    s
}

/// The line sent before `bestmove 0000` when `go` finds the game already over: the side to
/// move has lost (`mate 0`) or the game is drawn (`cp 0`).
pub fn game_over_info(o: Outcome, show_wdl: bool) -> String {
    let (score, w) = match o {
        Outcome::Win { .. } => ("mate 0", "0 0 1000"),
        Outcome::Draw { .. } => ("cp 0", "0 1000 0"),
    };
    if show_wdl {
        format!("info depth 0 score {score} wdl {w}")
    } else {
        format!("info depth 0 score {score}")
    }
}

fn move_list(moves: &[Move]) -> String {
    let v: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    v.join(" ")
}

/// The answer to `query legalmoves`.
pub fn legal_moves(game: &Game) -> String {
    response(&move_list(&game.legal_moves()))
}

/// The answer to `values` where the tables value every move: one line
/// `value <move> win|draw|loss [plies <N>]` per legal move, best first (N, the plies to the
/// next mill under best play, for a moving-phase win or loss), then `values <count> moves`.
pub fn values(moves: &[(Move, crate::tablebase::Probe)]) -> Vec<String> {
    use crate::tablebase::Wdl;
    let mut out: Vec<String> = moves
        .iter()
        .map(|(m, p)| {
            let (word, plies) = match p.wdl.real() {
                Wdl::Win => ("win", p.plies_to_mill),
                Wdl::Loss => ("loss", p.plies_to_mill),
                _ => ("draw", 0),
            };
            if plies > 0 {
                format!("value {m} {word} plies {plies}")
            } else {
                format!("value {m} {word}")
            }
        })
        .collect();
    out.push(format!("values {} moves", moves.len()));
    out
}

/// The answer to `values expected`: as [`values`], each line followed by ` expected <E>`, the
/// move's expected score (1 a win, ½ a draw, 0 a loss) against the fallible opponent model,
/// three decimals; a move whose replies leave the tables has none. Among moves of one value
/// the higher expected score comes first.
pub fn values_expected(
    moves: &[(Move, crate::tablebase::Probe)],
    expected: &[Option<f64>],
) -> Vec<String> {
    let mut order: Vec<usize> = (0..moves.len()).collect();
    // Stable: the tables' order (best value first) stays between values.
    order.sort_by(|&a, &b| {
        let key = |i: usize| moves[i].1.wdl.real();
        key(b).cmp(&key(a)).then_with(|| {
            let e = |i: usize| expected[i].unwrap_or(-1.0);
            e(b).total_cmp(&e(a))
        })
    });
    let sorted: Vec<(Move, crate::tablebase::Probe)> = order.iter().map(|&i| moves[i]).collect();
    let mut out = values(&sorted);
    for (line, &i) in out.iter_mut().zip(&order) {
        if let Some(e) = expected[i] {
            write!(line, " expected {e:.3}").unwrap();
        }
    }
    out
}

/// The answer to `values` where no table values the moves: `values none <why>`.
pub fn values_none(why: &str) -> String {
    format!("values none {why}")
}

/// The answer to `query mills`: every point that stands in a line of three pieces of one
/// colour, in point order; just `response` when there is none.
pub fn mills(pos: &Position) -> String {
    let mut in_mill = 0u32;
    for c in [crate::types::Color::White, crate::types::Color::Black] {
        let own = pos.pieces(c).0;
        for &line in pos.topology().lines() {
            if own & line == line {
                in_mill |= line;
            }
        }
    }
    let names: Vec<&str> = crate::bitboard::Bitboard(in_mill)
        .map(|p| p.name())
        .collect();
    response(&names.join(" "))
}

/// The answer to `d`: the diagram and the position's details.
pub fn display(game: &Game) -> Vec<String> {
    let pos = game.position();
    let mut v: Vec<String> = pos.diagram().lines().map(str::to_string).collect();
    v.push(String::new());
    v.push(format!("Position: {}", pos.to_fen()));
    v.push(format!("Rules: {}", pos.rules()));
    v.push(format!("Hash: {:016x}", pos.hash()));
    v.push(format!("Legal moves: {}", move_list(&game.legal_moves())));
    v.push(format!(
        "Outcome: {}",
        game.outcome().map_or("none".to_string(), |o| o.to_string())
    ));
    v
}

/// The answer to `eval`: each hand-tuned term for both sides, then their total from the side to
/// move's view; then the network's W/D/L and score when the search uses one.
pub fn eval(pos: &Position, net: Option<&crate::nnue::Network>) -> Vec<String> {
    let t = eval::trace(pos);
    let mut v = vec![
        format!("{:<14} {:>7} {:>7}", "term", "white", "black"),
        format!(
            "{:<14} {:>7} {:>7}",
            "phase",
            format!("{:?}", t.phases[0]).to_lowercase(),
            format!("{:?}", t.phases[1]).to_lowercase()
        ),
    ];
    let (w, b) = (t.terms[0].named(), t.terms[1].named());
    for ((name, wv), (_, bv)) in w.iter().zip(b.iter()) {
        v.push(format!("{name:<14} {wv:>7} {bv:>7}"));
    }
    v.push(format!(
        "{:<14} {:>7} {:>7}",
        "sum",
        t.terms[0].total(),
        t.terms[1].total()
    ));
    v.push(format!("tempo {} (side to move)", t.tempo));
    v.push(format!(
        "total {} (cp, {} to move)",
        t.total,
        pos.side_to_move()
    ));
    match net {
        Some(net) => {
            let acc = crate::nnue::Accumulator::new(net, pos);
            let us = pos.side_to_move();
            let (w, d, l) = net.wdl(&acc, pos);
            v.push(format!(
                "nnue wdl {w} {d} {l} score {} (cp, {us} to move; network {:016x}; the search uses it)",
                net.evaluate(&acc, pos),
                net.checksum
            ));
        }
        None => v.push("nnue none (the search uses the hand-tuned total)".to_string()),
    }
    v
}

/// The output of `perft`, shared with the command line: one `<move>: <count>` line per root
/// move, then `nodes <total>`.
pub fn perft(divide: &[(Move, u64)], depth: u32) -> Vec<String> {
    let mut v: Vec<String> = divide.iter().map(|&(m, n)| perft_move(m, n)).collect();
    let total: u64 = if depth == 0 {
        1
    } else {
        divide.iter().map(|(_, n)| n).sum()
    };
    v.push(perft_total(total));
    v
}

/// The output of `bench`, shared with the command line: one line per position, then
/// `<nodes> nodes <nps> nps`.
pub fn bench(r: &BenchResult) -> Vec<String> {
    let mut v: Vec<String> = r.lines.iter().map(bench_line).collect();
    v.push(bench_total(r));
    v
}

/// The last line of `bench`: `<nodes> nodes <nps> nps`.
pub fn bench_total(r: &BenchResult) -> String {
    format!("{} nodes {} nps", r.nodes, r.nps())
}

/// The last line of `perft`: `nodes <total>`.
pub fn perft_total(total: u64) -> String {
    format!("nodes {total}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::MATE;
    use std::time::Duration;

    #[test]
    fn option_lines() {
        let h = handshake(false);
        assert!(h.contains(&"option name Hash type spin default 16 min 1 max 65536".to_string()));
        assert!(h.contains(
            &"option name UCI_Variant type combo default nine var nine var twelve".to_string()
        ));
        assert!(h.contains(&"option name Clear Hash type button".to_string()));
        assert_eq!(h.last().unwrap(), "uciok");
        assert_eq!(handshake(true).last().unwrap(), "ugiok");
    }

    #[test]
    fn info_line() {
        let i = Info {
            depth: 5,
            seldepth: 9,
            multipv: 1,
            score: MATE - 3,
            bound: Bound::Lower,
            nodes: 1000,
            nps: 20000,
            hashfull: 3,
            time: Duration::from_millis(50),
            pv: vec!["d6".parse().unwrap(), "a1".parse().unwrap()],
            tbhits: 0,
            proven: false,
        };
        assert_eq!(
            info(&i, true),
            "info depth 5 seldepth 9 multipv 1 score mate 2 lowerbound wdl 1000 0 0 \
             nodes 1000 nps 20000 hashfull 3 tbhits 0 time 50 pv d6 a1"
        );
    }

    #[test]
    fn info_strings_stay_on_one_line() {
        assert_eq!(error(&"a\nb"), "info string error: a b");
    }
}
