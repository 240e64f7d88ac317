//! Endgame tables: known counts, consistency, agreement with a plain search, probing, files.

use millstone::tablebase::{
    file_name, plan, solve_pair, verify_table, Probe, Table, TableFile, Tablebase, TbError, Value,
    Wdl, HEADER_LEN,
};
use millstone::{Color, Position, Rules, Variant};
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::path::PathBuf;

fn solve(rules: Rules, w: u8, b: u8, smaller: &HashMap<(u8, u8), Table>) -> Vec<Table> {
    solve_pair(rules, w, b, smaller, &mut |_| {})
        .expect("solvable")
        .0
}

fn solve_3v3(rules: Rules) -> Table {
    solve(rules, 3, 3, &HashMap::new()).remove(0)
}

/// All sets of `k` points inside `within`, in increasing order.
fn subsets(k: u32, within: u32) -> Vec<u32> {
    fn rec(k: u32, rest: u32, acc: u32, out: &mut Vec<u32>) {
        if k == 0 {
            out.push(acc);
            return;
        }
        let mut r = rest;
        while r != 0 {
            let p = r.trailing_zeros();
            r &= r - 1;
            rec(k - 1, r, acc | 1 << p, out);
        }
    }
    let mut out = Vec::new();
    rec(k, within, 0, &mut out);
    out
}

fn fen_of(us: u32, them: u32, rule50: u16) -> String {
    // Ranks 7 down to 1: (first index, length).
    const RANKS: [(usize, usize); 7] = [(21, 3), (18, 3), (15, 3), (9, 6), (6, 3), (3, 3), (0, 3)];
    let ranks: Vec<String> = RANKS
        .iter()
        .map(|&(s, l)| {
            (s..s + l)
                .map(|p| {
                    if us & (1 << p) != 0 {
                        'W'
                    } else if them & (1 << p) != 0 {
                        'B'
                    } else {
                        '.'
                    }
                })
                .collect()
        })
        .collect();
    format!("{} w 0 0 {rule50} 80", ranks.join("/"))
}

fn position(rules: Rules, us: u32, them: u32, rule50: u16) -> Position {
    Position::from_fen(&fen_of(us, them, rule50), rules).expect("valid position")
}

#[test]
fn nine_flying_3v3_raw_counts() {
    let rules = Rules::new(Variant::Nine, true);
    let t = solve_3v3(rules);
    let (mut wins, mut draws, mut losses) = (0u64, 0u64, 0u64);
    let all = 0xff_ffff;
    // Every raw position through the index, before symmetry reduction.
    for us in subsets(3, all) {
        for them in subsets(3, all & !us) {
            match t.get(us, them) {
                Value::Win(_) => wins += 1,
                Value::Draw => draws += 1,
                Value::Loss(_) => losses += 1,
            }
        }
    }
    assert_eq!((wins, draws, losses), (2_232_160, 4_112, 455_648));
}

#[test]
fn all_configurations_3v3_are_consistent() {
    for variant in [Variant::Nine, Variant::Twelve] {
        for flying in [true, false] {
            let rules = Rules::new(variant, flying);
            let t = solve_3v3(rules);
            let n = verify_table(&t, &t, None).unwrap_or_else(|e| panic!("{rules}: {e}"));
            assert_eq!(n as usize, t.entries().len());
        }
    }
}

#[test]
fn verification_catches_a_wrong_value() {
    let rules = Rules::new(Variant::Nine, false);
    let t = solve_3v3(rules);
    let mut entries = t.entries().to_vec();
    let i = entries
        .iter()
        .position(|&e| matches!(Value::from_u16(e), Some(Value::Win(_))))
        .unwrap();
    entries[i] = Value::Draw.to_u16();
    let bad = Table::from_entries(rules, 3, 3, entries);
    assert!(verify_table(&bad, &bad, None).is_err());
}

/// Exact minimax over the library's move generation: `Some(v)` when the result is decided
/// within `depth` plies (a win or loss at that distance), `None` when it is not. A mill is the
/// end of the search: the opponent drops below three, or the smaller table values the rest.
fn search(pos: &Position, depth: u32, conv: &HashMap<(u8, u8), Table>) -> Option<Value> {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return Some(Value::Loss(0));
    }
    if depth == 0 {
        return None;
    }
    let mut best_win: Option<u16> = None;
    let mut all_lose = true;
    let mut max_loss = 0;
    for &m in moves.iter() {
        let mut child = *pos;
        child.make(m);
        let r = if m.removal().is_some() {
            let mover = child.side_to_move();
            let (own, opp) = (child.pieces(mover), child.pieces(mover.other()));
            if own.count() < 3 {
                Some(Value::Win(1))
            } else {
                let t = &conv[&(own.count() as u8, opp.count() as u8)];
                Some(Value::after_mill(t.get(own.0, opp.0)))
            }
        } else {
            search(&child, depth - 1, conv).map(Value::parent)
        };
        match r {
            Some(Value::Win(d)) => {
                best_win = Some(best_win.map_or(d, |b| b.min(d)));
                if d == 1 {
                    break;
                }
            }
            Some(Value::Loss(d)) => max_loss = max_loss.max(d),
            _ => all_lose = false,
        }
    }
    match best_win {
        Some(d) => Some(Value::Win(d)),
        None if all_lose => Some(Value::Loss(max_loss)),
        None => None,
    }
}

fn check_against_search(
    rules: Rules,
    t: &Table,
    conv: &HashMap<(u8, u8), Table>,
    depth: u32,
    samples: usize,
    seed: u64,
) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut decided = 0;
    for _ in 0..samples {
        let pick = |rng: &mut rand::rngs::StdRng, k: u8, avoid: u32| {
            let mut s = 0u32;
            while s.count_ones() < k as u32 {
                let p = rng.gen_range(0..24);
                if avoid & (1 << p) == 0 {
                    s |= 1 << p;
                }
            }
            s
        };
        let us = pick(&mut rng, t.w, 0);
        let them = pick(&mut rng, t.b, us);
        let pos = position(rules, us, them, 0);
        let stored = t.get(us, them);
        let within = matches!(stored, Value::Win(d) | Value::Loss(d) if d as u32 <= depth);
        let found = search(&pos, depth, conv);
        if within {
            decided += 1;
            assert_eq!(found, Some(stored), "{rules} {}", pos.to_fen());
        } else {
            assert_eq!(found, None, "{rules} {}: table {stored}", pos.to_fen());
        }
    }
    assert!(decided > 0, "the sample should hold decided positions");
}

#[test]
fn agrees_with_plain_search_3v3() {
    for (variant, flying, depth, samples) in [
        (Variant::Nine, true, 3, 25),
        (Variant::Nine, false, 6, 200),
        (Variant::Twelve, false, 5, 150),
        (Variant::Twelve, true, 3, 15),
    ] {
        let rules = Rules::new(variant, flying);
        let t = solve_3v3(rules);
        check_against_search(rules, &t, &HashMap::new(), depth, samples, 7);
    }
}

#[test]
fn agrees_with_plain_search_across_mills() {
    // 3 v 4 without flying: mills lead into 3 v 3, which the search reads from its table.
    let rules = Rules::new(Variant::Nine, false);
    let mut smaller = HashMap::new();
    smaller.insert((3, 3), solve_3v3(rules));
    let pair = solve(rules, 3, 4, &smaller);
    let (t34, t43) = (&pair[0], &pair[1]);
    assert_eq!((t34.w, t34.b, t43.w, t43.b), (3, 4, 4, 3));
    verify_table(t34, t43, smaller.get(&(3, 3))).unwrap();
    verify_table(t43, t34, None).unwrap();
    check_against_search(rules, t34, &smaller, 6, 150, 11);
    check_against_search(rules, t43, &smaller, 6, 150, 12);
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("millstone-tb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn probing_through_files() {
    let rules = Rules::new(Variant::Nine, true);
    let dir = temp_dir("probe");
    let t = solve_3v3(rules);
    t.write(&dir.join(millstone::tablebase::file_name(rules, 3, 3)))
        .unwrap();
    let tb = Tablebase::open(&dir).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let mut seen_win = false;
    for _ in 0..300 {
        let all: Vec<u32> = (0..24).collect();
        let mut pts = all.clone();
        for i in 0..6 {
            let j = rng.gen_range(i..24);
            pts.swap(i, j);
        }
        let us = (1 << pts[0]) | (1 << pts[1]) | (1 << pts[2]);
        let them = (1 << pts[3]) | (1 << pts[4]) | (1 << pts[5]);
        let stored = t.get(us, them);
        let pos = position(rules, us, them, 0);
        let p = tb.probe(&pos).unwrap();
        assert_eq!(p.value, stored);
        // The same position with Black to move probes the same.
        let flipped =
            Position::from_fen(&fen_of(them, us, 0).replace(" w ", " b "), rules).unwrap();
        assert_eq!(flipped.side_to_move(), Color::Black);
        assert_eq!(tb.probe(&flipped).unwrap().value, stored);
        let root = tb.probe_root(&pos).unwrap();
        assert_eq!(root.probe.value, stored, "{}", pos.to_fen());
        if let Value::Win(d) = stored {
            seen_win = true;
            assert_eq!(p.wdl, Wdl::Win);
            // With the counter too far on, the win is spoilt; the best move stays the same.
            let late = position(rules, us, them, 100 - d + 1);
            let lp = tb.probe(&late).unwrap();
            assert_eq!(lp.wdl, Wdl::CursedWin);
            assert_eq!(lp.wdl.real(), Wdl::Draw);
            let just = position(rules, us, them, 100 - d);
            assert_eq!(tb.probe(&just).unwrap().wdl, Wdl::Win);
            // Playing the best move keeps the win and brings the mill a ply closer.
            let mut child = pos;
            child.make(root.best);
            if root.best.removal().is_none() {
                assert_eq!(tb.probe(&child).unwrap().value, Value::Loss(d - 1));
            } else {
                assert_eq!(d, 1);
            }
        }
    }
    assert!(seen_win);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn best_play_reaches_the_mill_at_the_stored_distance() {
    // Without flying, 3 v 3 holds long wins; both sides follow probe_root and the winner's
    // mill (or the loser's blockade) must come exactly when the table says.
    let rules = Rules::new(Variant::Nine, false);
    let dir = temp_dir("line");
    let t = solve_3v3(rules);
    t.write(&dir.join(millstone::tablebase::file_name(rules, 3, 3)))
        .unwrap();
    let tb = Tablebase::open(&dir).unwrap();
    let mut longest: Vec<(u16, u32)> = (0..t.entries().len() as u32)
        .filter_map(|i| match Value::from_u16(t.entries()[i as usize]) {
            Some(Value::Win(d)) if d >= 20 => Some((d, i)),
            _ => None,
        })
        .collect();
    longest.sort_unstable_by_key(|&(d, i)| (std::cmp::Reverse(d), i));
    assert!(longest[0].0 >= 30, "3 v 3 without flying has long wins");
    for &(d, i) in longest.iter().step_by(97).take(12) {
        let (us, them, _) = t.index().unrank(i);
        let mut pos = position(rules, us, them, 0);
        let winner = pos.side_to_move();
        let mut plies = 0;
        loop {
            let root = match tb.probe_root(&pos) {
                Some(r) => r,
                None => {
                    // No move: the loser is blocked.
                    assert_ne!(pos.side_to_move(), winner);
                    break;
                }
            };
            let m = root.best;
            pos.make(m);
            plies += 1;
            if m.removal().is_some() {
                assert_eq!(pos.side_to_move(), !winner, "the winner closes the mill");
                break;
            }
            assert!(plies <= d, "no mill after {plies} plies");
        }
        assert_eq!(plies, d, "start {}", position(rules, us, them, 0).to_fen());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn file_round_trip_and_damage() {
    let rules = Rules::new(Variant::Twelve, false);
    let t = solve_3v3(rules);
    let dir = temp_dir("files");
    let path = dir.join(millstone::tablebase::file_name(rules, 3, 3));
    t.write(&path).unwrap();
    let back = Table::read(&path, rules, 3, 3).unwrap();
    assert_eq!(back.entries(), t.entries());
    let bytes = std::fs::read(&path).unwrap();
    let mapped = TableFile::open(&path, rules, 3, 3).unwrap();
    assert_eq!(mapped.file_len(), bytes.len() as u64);
    // 1.6 bits a slot for the W/D/L part, and the distances compress: under half the old size.
    assert!(bytes.len() < t.entries().len(), "{} bytes", bytes.len());

    let expect_format_error =
        |bytes: &[u8], rules: Rules, w: u8, b: u8, needle: &str| match Table::from_bytes(
            bytes, rules, w, b, &path,
        ) {
            Err(TbError::Format { reason, .. }) => {
                assert!(
                    reason.contains(needle),
                    "'{reason}' should mention '{needle}'"
                )
            }
            other => panic!("expected a format error about {needle}, got {other:?}"),
        };
    // A flipped bit in the W/D/L part, in the header, in the last distance block.
    let mut bad = bytes.clone();
    bad[HEADER_LEN + 1000] ^= 0x10;
    expect_format_error(&bad, rules, 3, 3, "W/D/L part checksum");
    let mut bad = bytes.clone();
    bad[40] ^= 0x01;
    expect_format_error(&bad, rules, 3, 3, "header checksum");
    let mut bad = bytes.clone();
    let last = bad.len() - 3;
    bad[last] ^= 0x40;
    expect_format_error(&bad, rules, 3, 3, "block checksum");
    // Truncated or padded, and a file shorter than its header or its index.
    expect_format_error(&bytes[..bytes.len() - 2], rules, 3, 3, "truncated");
    let mut long = bytes.clone();
    long.push(0);
    expect_format_error(&long, rules, 3, 3, "padded");
    expect_format_error(&bytes[..10], rules, 3, 3, "header");
    expect_format_error(&bytes[..HEADER_LEN + 100], rules, 3, 3, "truncated");
    // Wrong magic, version, sub-space or rules.
    let mut bad = bytes.clone();
    bad[0] = b'X';
    expect_format_error(&bad, rules, 3, 3, "magic");
    let mut bad = bytes.clone();
    bad[8] = 99;
    expect_format_error(&bad, rules, 3, 3, "version");
    expect_format_error(&bytes, rules, 3, 4, "expected");
    expect_format_error(&bytes, Rules::new(Variant::Twelve, true), 3, 3, "expected");

    // Through the tablebase: a damaged file is an error on load and no answer on probe.
    let mut bad = bytes.clone();
    bad[HEADER_LEN + 7] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let tb = Tablebase::open(&dir).unwrap();
    let err = tb.load(rules, 3, 3).unwrap_err();
    assert!(err.to_string().contains("checksum"), "{err}");
    assert!(err.to_string().contains("not a valid table"), "{err}");
    let pos = position(rules, 0b111, 0b111 << 9, 0);
    assert!(tb.probe(&pos).is_none());
    assert!(tb.probe_wdl(&pos).is_none());
    // So is a truncated one.
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let err = Tablebase::open(&dir)
        .unwrap()
        .load(rules, 3, 3)
        .unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
    assert!(Tablebase::open(&dir).unwrap().probe(&pos).is_none());
    // A damaged distance block opens (blocks are checked when decoded): the W/D/L probe
    // answers, the probes that need that block's distances do not, and never wrongly.
    let mut bad = bytes.clone();
    bad[last] ^= 0x40;
    std::fs::write(&path, &bad).unwrap();
    let tb = Tablebase::open(&dir).unwrap();
    let f = tb.load(rules, 3, 3).unwrap();
    assert!(f.check_blocks().is_err());
    let k = f.header().block_slots;
    let last_block = (t.entries().len() as u32 - 1) / k;
    let mut refused = 0;
    for slot in 0..t.entries().len() as u32 {
        let (us, them, _) = t.index().unrank(slot);
        let pos = position(rules, us, them, 0);
        let p = tb.probe(&pos);
        assert_eq!(
            tb.probe_wdl(&pos),
            Some(Probe::from_value(t.get(us, them), 0).wdl.real())
        );
        if slot / k == last_block {
            refused += p.is_none() as u32;
        } else {
            assert_eq!(p.map(|p| p.value), Some(t.get(us, them)));
        }
    }
    assert!(refused > 0);
    // A missing sub-space is simply not covered.
    assert!(tb.table(rules, 3, 4).is_none());
    assert!(Tablebase::open(dir.join("missing")).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn hundred_ply_rule_in_values() {
    // A mill resets the counter: what follows it counts from 0, and a result spoilt by the
    // rule after the mill stays spoilt (above 100) before it.
    assert_eq!(Value::after_mill(Value::Loss(0)), Value::Win(1));
    assert_eq!(Value::after_mill(Value::Loss(100)), Value::Win(1));
    assert_eq!(Value::after_mill(Value::Loss(101)), Value::Win(101));
    assert_eq!(Value::after_mill(Value::Win(7)), Value::Loss(1));
    assert_eq!(Value::after_mill(Value::Win(150)), Value::Loss(101));
    assert_eq!(Value::after_mill(Value::Draw), Value::Draw);
    assert_eq!(Value::Loss(4).parent(), Value::Win(5));
    // The counter decides whether a stored result is real.
    assert_eq!(Probe::from_value(Value::Win(30), 70).wdl, Wdl::Win);
    assert_eq!(Probe::from_value(Value::Win(30), 71).wdl, Wdl::CursedWin);
    assert_eq!(Probe::from_value(Value::Loss(30), 71).wdl, Wdl::BlessedLoss);
    assert_eq!(Probe::from_value(Value::Win(101), 0).wdl, Wdl::CursedWin);
    assert_eq!(Probe::from_value(Value::Draw, 0).wdl, Wdl::Draw);
    // No move at counter 100 still loses: a loss takes precedence over the draw.
    assert_eq!(Probe::from_value(Value::Loss(0), 100).wdl, Wdl::Loss);
    assert_eq!(Probe::from_value(Value::Loss(1), 100).wdl, Wdl::BlessedLoss);
    assert_eq!(Wdl::CursedWin.real(), Wdl::Draw);
    assert_eq!(Wdl::Win.flip(), Wdl::Loss);
}

#[test]
fn tablebase_is_shareable_between_threads() {
    fn assert_sync<T: Sync + Send>() {}
    assert_sync::<Tablebase>();
}

/// Every slot of `t` read through its mapped file `f`: values, and the W/D/L probe at several
/// counters, which must equal the exact probe's real result.
fn check_mapped(t: &Table, f: &TableFile) {
    assert_eq!(f.index().len(), t.entries().len());
    for slot in 0..t.entries().len() as u32 {
        let v = Value::from_u16(t.entries()[slot as usize]).unwrap();
        assert_eq!(f.value_at(slot).unwrap(), v, "slot {slot}");
        let (us, them, _) = t.index().unrank(slot);
        for c in [0, 1, 30, 60, 80, 95, 99, 100] {
            let want = Probe::from_value(v, c).wdl.real();
            assert_eq!(
                f.wdl(us, them, c),
                Some(want),
                "slot {slot} {v} counter {c}"
            );
        }
    }
}

#[test]
fn new_format_for_all_four_rule_sets() {
    // 3v3, 3v4 and 4v3 of every rule set: written, read back, verified one ply deep from the
    // files, and every slot probed through the map equals the solver's value.
    for variant in [Variant::Nine, Variant::Twelve] {
        for flying in [true, false] {
            let rules = Rules::new(variant, flying);
            let dir = temp_dir(&format!("rules-{}-{flying}", variant.name()));
            let mut solved = HashMap::new();
            for (w, b) in [(3, 3), (3, 4)] {
                for t in solve(rules, w, b, &solved) {
                    t.write(&dir.join(file_name(rules, t.w, t.b))).unwrap();
                    solved.insert((t.w, t.b), t);
                }
            }
            let read = |w: u8, b: u8| Table::read(&dir.join(file_name(rules, w, b)), rules, w, b);
            let (t33, t34, t43) = (
                read(3, 3).unwrap(),
                read(3, 4).unwrap(),
                read(4, 3).unwrap(),
            );
            for t in [&t33, &t34, &t43] {
                assert_eq!(t.entries(), solved[&(t.w, t.b)].entries(), "{rules} {t:?}");
            }
            verify_table(&t33, &t33, None).unwrap();
            verify_table(&t34, &t43, Some(&t33)).unwrap();
            verify_table(&t43, &t34, None).unwrap();
            let tb = Tablebase::open(&dir).unwrap();
            assert_eq!(tb.snapshot(rules).len(), 3);
            for t in [&t33, &t34, &t43] {
                let f = tb.load(rules, t.w, t.b).unwrap();
                f.check_blocks().unwrap();
                check_mapped(t, &f);
                // The header's counts are the table's.
                assert_eq!(*f.stats(), t.stats());
                let s = f.stats();
                assert_eq!(
                    s.wins + s.draws + s.losses + s.spoilt_wins + s.spoilt_losses,
                    s.positions
                );
            }
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

#[test]
fn files_match_the_solver_up_to_8_pieces() {
    // Every sub-space up to 8 pieces of nine with and without flying: the file decodes to the
    // solver's output (what the old 2-byte format stored verbatim), and the mapped probes agree.
    for flying in [true, false] {
        let rules = Rules::new(Variant::Nine, flying);
        let dir = temp_dir(&format!("eight-{flying}"));
        let mut solved = HashMap::new();
        for job in plan(rules, 8, 9) {
            for t in solve(rules, job.w, job.b, &solved) {
                t.write(&dir.join(file_name(rules, t.w, t.b))).unwrap();
                solved.insert((t.w, t.b), t);
            }
        }
        assert_eq!(solved.len(), 6);
        let tb = Tablebase::open(&dir).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        for (&(w, b), t) in &solved {
            let back = Table::read(&dir.join(file_name(rules, w, b)), rules, w, b).unwrap();
            assert_eq!(back.entries(), t.entries(), "{rules} {w}v{b}");
            let f = tb.load(rules, w, b).unwrap();
            let n = t.entries().len() as u32;
            for _ in 0..20_000 {
                let slot = rng.gen_range(0..n);
                let v = Value::from_u16(t.entries()[slot as usize]).unwrap();
                assert_eq!(f.value_at(slot).unwrap(), v);
                let (us, them, _) = t.index().unrank(slot);
                let c = rng.gen_range(0..=100);
                let pos = position(rules, us, them, c);
                assert_eq!(tb.probe(&pos).unwrap().value, v);
                assert_eq!(tb.probe_wdl(&pos), Some(Probe::from_value(v, c).wdl.real()));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn probe_misses_outside_the_tables() {
    let rules = Rules::new(Variant::Nine, true);
    let dir = temp_dir("miss");
    solve_3v3(rules)
        .write(&dir.join(file_name(rules, 3, 3)))
        .unwrap();
    // Junk with a table's name is counted as present but refused on first probe.
    std::fs::write(dir.join(file_name(rules, 3, 4)), b"junk").unwrap();
    let tb = Tablebase::open(&dir).unwrap();
    let snap = tb.snapshot(rules);
    assert_eq!(snap.len(), 2);
    assert!(tb.snapshot(Rules::new(Variant::Nine, false)).is_empty());
    // Placing phase, another rule set, a sub-space without a file, a damaged file.
    let placing = Position::from_fen("W../.B./.../....../.../.../... w 8 8 0 2", rules).unwrap();
    assert!(snap.probe_wdl(&placing).is_none() && snap.probe(&placing).is_none());
    let pos = position(Rules::new(Variant::Nine, false), 0b111, 0b111 << 9, 0);
    assert!(snap.probe_wdl(&pos).is_none());
    let pos = position(rules, 0b1111, 0b111 << 9, 0);
    assert!(snap.probe_wdl(&pos).is_none(), "4v3 has no file");
    let pos = position(rules, 0b111, 0b1111 << 9, 0);
    assert!(snap.probe_wdl(&pos).is_none(), "3v4 is junk");
    let pos = position(rules, 0b111, 0b111 << 9, 0);
    assert!(snap.probe_wdl(&pos).is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Compares the files of the old format (version 1: 2 bytes a slot and an FNV-1a of them) in
/// `$MILLSTONE_OLD_TABLES` with the new ones in `$MILLSTONE_NEW_TABLES`, decoded; run by hand:
/// `MILLSTONE_OLD_TABLES=old MILLSTONE_NEW_TABLES=new cargo test --release --test tablebase
/// -- --ignored old_format`.
#[test]
#[ignore]
fn old_format_files_decode_identically() {
    let (Ok(old), Ok(new)) = (
        std::env::var("MILLSTONE_OLD_TABLES"),
        std::env::var("MILLSTONE_NEW_TABLES"),
    ) else {
        panic!("set MILLSTONE_OLD_TABLES and MILLSTONE_NEW_TABLES");
    };
    let mut compared = 0;
    for e in std::fs::read_dir(&old).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().to_string();
        let Some((rules, w, b)) = millstone::tablebase::parse_file_name(&name) else {
            continue;
        };
        let bytes = std::fs::read(e.path()).unwrap();
        assert_eq!(
            u16::from_le_bytes([bytes[8], bytes[9]]),
            1,
            "{name}: not version 1"
        );
        let t = Table::read(&PathBuf::from(&new).join(&name), rules, w, b).unwrap();
        let mut payload = Vec::with_capacity(2 * t.entries().len());
        for &x in t.entries() {
            payload.extend_from_slice(&x.to_le_bytes());
        }
        assert_eq!(&bytes[32..], &payload[..], "{name}");
        compared += 1;
        eprintln!("{name}: {} slots identical", t.entries().len());
    }
    assert!(compared > 0);
}
