//! `millstone.VectorEnv`: n games stepped in Rust with the GIL released, in parallel over
//! rayon's threads for big batches (each game has its own random generator, so results do not
//! depend on the number of threads).

use crate::core::{Core, OBS_LEN, OBS_PLANES};
use crate::encoding::{base_id, full_id, full_move, NUM_FULL, NUM_TWO_STEP};
use crate::position::{parse_color, rules_of, PyPosition};
use millstone::{movegen, Color, Move, Outcome, Position, Rules};
use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

/// Games per parallel task (with `threads` > 1); smaller batches run on the calling thread.
const CHUNK: usize = 256;

/// SplitMix64: a small, fast generator per game.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        ((self.next() as u128 * n as u128) >> 64) as usize
    }
}

/// Who answers the agent's moves.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Opponent {
    /// Nobody: the caller plays both sides (self-play).
    SelfPlay,
    /// A uniformly random legal move.
    Random,
    /// A winning move if one exists, else a mill (random removal), else a random move.
    Greedy,
}

/// Whether the side to move after `m` has lost at once.
fn wins_at_once(core: &Core, m: Move) -> bool {
    let them = core.to_move().other();
    let mut p = *core.position();
    p.make(m);
    p.material(them) < 3 || !movegen::has_legal_move(&p)
}

/// A random legal move of a game in progress: uniform over the list of legal moves, picked by
/// its index without building the list.
fn random_move(core: &Core, rng: &mut Rng) -> Move {
    core.choose_legal(|n| rng.below(n))
}

/// The greedy choice among `moves` (non-empty): one that wins at once, else one that closes a
/// mill, else any, at random among equals.
fn greedy_among(core: &Core, moves: &[Move], rng: &mut Rng) -> Move {
    let mut mills = 0usize;
    for &m in moves {
        if m.removal().is_some() {
            if wins_at_once(core, m) {
                return m;
            }
            mills += 1;
        }
    }
    if mills > 0 {
        let k = rng.below(mills);
        return *moves
            .iter()
            .filter(|m| m.removal().is_some())
            .nth(k)
            .unwrap();
    }
    moves[rng.below(moves.len())]
}

/// `1` white won, `2` black won, `3` draw.
fn result_code(o: Outcome) -> i8 {
    match o.winner() {
        Some(Color::White) => 1,
        Some(Color::Black) => 2,
        None => 3,
    }
}

/// Reward of a finished game for `side`.
fn reward_for(o: Outcome, side: Color) -> f32 {
    match o.winner() {
        Some(w) if w == side => 1.0,
        Some(_) => -1.0,
        None => 0.0,
    }
}

/// The settings every game shares.
#[derive(Copy, Clone)]
struct Config {
    two_step: bool,
    opponent: Opponent,
    agent: Color,
}

/// One game of the batch.
#[derive(Clone)]
struct Slot {
    core: Core,
    rng: Rng,
    episode_len: u32,
    finished_len: u32,
    result: i8,
    games: u64,
    moves: u64,
    /// The action the random or greedy player last picked here, legal until the game moves on:
    /// `step` with it needs no check.
    picked: Option<usize>,
}

impl Slot {
    fn new(start: Position, seed: u64, i: usize) -> Slot {
        let mut rng = Rng(seed ^ (i as u64).wrapping_mul(0xd1b5_4a32_d192_ed03));
        rng.next();
        Slot {
            core: Core::new_light(start),
            rng,
            episode_len: 0,
            finished_len: 0,
            result: 0,
            games: 0,
            moves: 0,
            picked: None,
        }
    }

    fn play(&mut self, m: Move) {
        self.picked = None;
        self.core.play_legal(m);
        self.moves += 1;
        self.episode_len += 1;
    }

    /// The opponent's moves until it is the agent's turn (or the game ends).
    fn opponent_moves(&mut self, cfg: Config) {
        while cfg.opponent != Opponent::SelfPlay
            && self.core.outcome().is_none()
            && self.core.to_move() != cfg.agent
        {
            let m = match cfg.opponent {
                Opponent::Random => random_move(&self.core, &mut self.rng),
                _ => greedy_among(&self.core, self.core.legal(), &mut self.rng),
            };
            self.play(m);
        }
    }

    fn reset(&mut self, cfg: Config) {
        self.picked = None;
        self.core.reset();
        self.episode_len = 0;
        self.opponent_moves(cfg);
    }

    /// After a move: the reward for `side` and whether the game ended (then it is reset).
    fn settle(&mut self, cfg: Config, side: Color) -> (f32, bool) {
        self.result = 0;
        match self.core.outcome() {
            Some(o) => {
                self.result = result_code(o);
                self.finished_len = self.episode_len;
                self.games += 1;
                self.reset(cfg);
                (reward_for(o, side), true)
            }
            None => (0.0, false),
        }
    }

    fn legal_ids(&self, cfg: Config, out: &mut Vec<usize>) {
        if cfg.two_step {
            self.core.legal_two_step_ids(out);
        } else {
            self.core.legal_full_ids(out);
        }
    }

    fn is_legal(&self, cfg: Config, a: usize) -> bool {
        if self.picked == Some(a) {
            return true;
        }
        if cfg.two_step {
            let mut v = Vec::new();
            self.core.legal_two_step_ids(&mut v);
            v.contains(&a)
        } else {
            self.core.pending().is_none() && full_move(a).is_some_and(|m| self.core.is_legal(m))
        }
    }

    /// Applies a checked action, then the opponent's answer.
    fn step(&mut self, cfg: Config, a: usize) -> (f32, bool) {
        self.picked = None;
        let mover = self.core.to_move();
        let done = if cfg.two_step {
            self.core.apply_two_step(a).expect("a checked action")
        } else {
            self.core
                .play_legal(full_move(a).expect("a checked action"));
            true
        };
        if done {
            self.moves += 1;
            self.episode_len += 1;
        }
        self.opponent_moves(cfg);
        let side = if cfg.opponent == Opponent::SelfPlay {
            mover
        } else {
            cfg.agent
        };
        self.settle(cfg, side)
    }

    /// A random (or greedy) legal action id.
    fn pick(&mut self, cfg: Config, greedy: bool) -> usize {
        let a = self.pick_uncached(cfg, greedy);
        self.picked = Some(a);
        a
    }

    fn pick_uncached(&mut self, cfg: Config, greedy: bool) -> usize {
        let core = &self.core;
        if let Some(p) = core.pending() {
            let cands: Vec<Move> = core
                .legal()
                .iter()
                .copied()
                .filter(|m| m.without_removal() == p)
                .collect();
            let m = if greedy {
                greedy_among(core, &cands, &mut self.rng)
            } else {
                cands[self.rng.below(cands.len())]
            };
            return m.removal().map_or(0, |r| r.index());
        }
        let m = if greedy {
            greedy_among(core, core.legal(), &mut self.rng)
        } else if cfg.two_step {
            // Uniform over the two-step ids, as a uniform policy over the mask would be.
            let mut ids = Vec::new();
            core.legal_two_step_ids(&mut ids);
            return ids[self.rng.below(ids.len())];
        } else {
            random_move(core, &mut self.rng)
        };
        if cfg.two_step {
            base_id(m)
        } else {
            full_id(m)
        }
    }
}

/// Runs `f` on every slot with its index: on the calling thread, or in chunks of `chunk` games
/// on `pool` when there is more than one chunk.
fn for_each_slot<T: Send>(
    pool: Option<&rayon::ThreadPool>,
    slots: &mut [Slot],
    out: &mut [T],
    chunk: usize,
    f: impl Fn(usize, &mut Slot, &mut T) + Sync,
) {
    let Some(pool) = pool.filter(|_| slots.len() > chunk) else {
        for (i, (s, o)) in slots.iter_mut().zip(out.iter_mut()).enumerate() {
            f(i, s, o);
        }
        return;
    };
    pool.install(|| {
        slots
            .par_chunks_mut(chunk)
            .zip(out.par_chunks_mut(chunk))
            .enumerate()
            .for_each(|(c, (ss, oo))| {
                for (j, (s, o)) in ss.iter_mut().zip(oo.iter_mut()).enumerate() {
                    f(c * chunk + j, s, o);
                }
            })
    });
}

/// Steps every game by its action (all checked) and writes its observation, reward and done flag:
/// on the calling thread, or in chunks on `pool`.
fn step_all(
    pool: Option<&rayon::ThreadPool>,
    slots: &mut [Slot],
    actions: &[i64],
    cfg: Config,
    obs: &mut [f32],
    rewards: &mut [f32],
    dones: &mut [bool],
) {
    let run =
        |slots: &mut [Slot], actions: &[i64], obs: &mut [f32], r: &mut [f32], d: &mut [bool]| {
            for ((((s, &a), o), r), d) in slots
                .iter_mut()
                .zip(actions)
                .zip(obs.chunks_exact_mut(OBS_LEN))
                .zip(r.iter_mut())
                .zip(d.iter_mut())
            {
                (*r, *d) = s.step(cfg, a as usize);
                s.core.observe(o);
            }
        };
    let Some(pool) = pool.filter(|_| slots.len() > CHUNK) else {
        return run(slots, actions, obs, rewards, dones);
    };
    pool.install(|| {
        slots
            .par_chunks_mut(CHUNK)
            .zip(actions.par_chunks(CHUNK))
            .zip(obs.par_chunks_mut(CHUNK * OBS_LEN))
            .zip(rewards.par_chunks_mut(CHUNK))
            .zip(dones.par_chunks_mut(CHUNK))
            .for_each(|((((s, a), o), r), d)| run(s, a, o, r, d))
    });
}

/// n games of mill stepped together in Rust.
///
/// ``VectorEnv(n, variant="nine", flying=True, seed=0, two_step=False, opponent=None,
/// agent="w", threads=1)``. Actions are complete-move ids (15000) or, with ``two_step=True``, two-step ids
/// (600). ``step(actions)`` applies one action per game and returns ``(obs, rewards, dones)``;
/// a finished game is reset at once (``obs`` then shows its new start, ``results`` how the old
/// one ended). Without an opponent the caller plays both sides and the reward is for the side
/// that just acted; with ``opponent="random"`` or ``"greedy"`` the agent plays ``agent``'s side,
/// the opponent answers in Rust, and the reward is the agent's. The GIL is released while the
/// games are stepped; with ``threads`` > 1, batches above 256 games (``play_random``: calls of
/// more than about 256 moves) are stepped on that many threads (results do not depend on it:
/// each game has its own random generator).
#[pyclass(module = "millstone._millstone", name = "VectorEnv")]
pub struct VectorEnv {
    slots: Vec<Slot>,
    rules: Rules,
    cfg: Config,
    pool: Option<rayon::ThreadPool>,
}

impl VectorEnv {
    fn actions_per_game(&self) -> usize {
        if self.cfg.two_step {
            NUM_TWO_STEP
        } else {
            NUM_FULL
        }
    }

    fn observe_all(&self, out: &mut [f32]) {
        for (s, o) in self.slots.iter().zip(out.chunks_mut(OBS_LEN)) {
            s.core.observe(o);
        }
    }

    /// The random (or greedy) players' actions, in a new array.
    fn picks<'py>(&mut self, py: Python<'py>, greedy: bool) -> Bound<'py, PyArray1<i64>> {
        let cfg = self.cfg;
        // Written in full below before Python sees it.
        let arr = unsafe { PyArray1::<i64>::new_bound(py, self.slots.len(), false) };
        let out = unsafe { arr.as_slice_mut().expect("contiguous") };
        let (pool, slots) = (self.pool.as_ref(), &mut self.slots);
        py.allow_threads(|| {
            for_each_slot(pool, slots, out, CHUNK, |_, s, o| {
                *o = s.pick(cfg, greedy) as i64
            })
        });
        arr
    }

    fn slot(&self, i: usize) -> PyResult<&Slot> {
        self.slots
            .get(i)
            .ok_or_else(|| PyValueError::new_err(format!("no game {i}")))
    }
}

#[pymethods]
impl VectorEnv {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (n, variant = "nine", flying = true, seed = 0, two_step = false, opponent = None, agent = "w", threads = 1))]
    fn new(
        n: usize,
        variant: &str,
        flying: bool,
        seed: u64,
        two_step: bool,
        opponent: Option<&str>,
        agent: &str,
        threads: usize,
    ) -> PyResult<Self> {
        if n == 0 {
            return Err(PyValueError::new_err("n must be at least 1"));
        }
        let rules = rules_of(variant, flying)?;
        let opponent = match opponent {
            None | Some("none") | Some("self") => Opponent::SelfPlay,
            Some("random") => Opponent::Random,
            Some("greedy") => Opponent::Greedy,
            Some(o) => {
                return Err(PyValueError::new_err(format!(
                    "opponent {o:?}: expected None, \"random\" or \"greedy\""
                )))
            }
        };
        let cfg = Config {
            two_step,
            opponent,
            agent: parse_color(agent)?,
        };
        let start = Position::new(rules);
        let mut env = VectorEnv {
            slots: (0..n).map(|i| Slot::new(start, seed, i)).collect(),
            rules,
            cfg,
            pool: None,
        };
        if threads > 1 {
            env.pool = Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| PyValueError::new_err(e.to_string()))?,
            );
        }
        for s in &mut env.slots {
            s.reset(cfg);
        }
        Ok(env)
    }

    /// Number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        self.slots.len()
    }

    fn __len__(&self) -> usize {
        self.slots.len()
    }

    /// Number of action ids (15000, or 600 in the two-step form).
    #[getter]
    fn num_actions(&self) -> usize {
        self.actions_per_game()
    }

    /// ``(variant, flying)``.
    #[getter]
    fn rules(&self) -> (&'static str, bool) {
        (self.rules.variant.name(), self.rules.flying)
    }

    /// Restarts every game (and reseeds when ``seed`` is given); returns the observations.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> Bound<'py, PyArray3<f32>> {
        let cfg = self.cfg;
        for (i, s) in self.slots.iter_mut().enumerate() {
            if let Some(seed) = seed {
                s.rng = Slot::new(Position::new(self.rules), seed, i).rng;
            }
            s.result = 0;
            s.reset(cfg);
        }
        self.observations(py)
    }

    /// The observations, shape ``(n, 8, 24)`` float32, each from its side to move's view.
    fn observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f32>> {
        let mut obs = vec![0f32; self.slots.len() * OBS_LEN];
        self.observe_all(&mut obs);
        PyArray1::from_vec_bound(py, obs)
            .reshape([self.slots.len(), OBS_PLANES, 24])
            .expect("shape")
    }

    /// Legal-action masks, shape ``(n, num_actions)`` bool.
    fn action_masks<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        let a = self.actions_per_game();
        let mut mask = vec![false; self.slots.len() * a];
        let mut ids = Vec::new();
        for (s, row) in self.slots.iter().zip(mask.chunks_mut(a)) {
            ids.clear();
            s.legal_ids(self.cfg, &mut ids);
            for &i in &ids {
                row[i] = true;
            }
        }
        PyArray1::from_vec_bound(py, mask)
            .reshape([self.slots.len(), a])
            .expect("shape")
    }

    /// The legal action ids of game ``i``.
    fn legal_actions(&self, i: usize) -> PyResult<Vec<usize>> {
        let mut ids = Vec::new();
        self.slot(i)?.legal_ids(self.cfg, &mut ids);
        Ok(ids)
    }

    /// Whose turn it is in each game: 0 White, 1 Black, shape ``(n,)`` int8.
    fn to_play<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        PyArray1::from_vec_bound(
            py,
            self.slots
                .iter()
                .map(|s| s.core.to_move().index() as i8)
                .collect(),
        )
    }

    /// How each game that ended in the last step ended: 0 not ended, 1 White won, 2 Black won,
    /// 3 draw; shape ``(n,)`` int8.
    #[getter]
    fn results<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        PyArray1::from_vec_bound(py, self.slots.iter().map(|s| s.result).collect())
    }

    /// Moves (plies) of each game's last finished episode, shape ``(n,)`` uint32.
    #[getter]
    fn episode_lengths<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_vec_bound(py, self.slots.iter().map(|s| s.finished_len).collect())
    }

    /// Games finished since the environment was made.
    #[getter]
    fn games_finished(&self) -> u64 {
        self.slots.iter().map(|s| s.games).sum()
    }

    /// Complete moves played since the environment was made (opponents' included).
    #[getter]
    fn moves_played(&self) -> u64 {
        self.slots.iter().map(|s| s.moves).sum()
    }

    /// Game ``i`` as a ``Position`` (a copy, with its history).
    fn position(&self, i: usize) -> PyResult<PyPosition> {
        Ok(PyPosition {
            core: self.slot(i)?.core.with_history(),
        })
    }

    /// The position strings of all games.
    fn fens(&self) -> Vec<String> {
        self.slots
            .iter()
            .map(|s| s.core.position().to_fen())
            .collect()
    }

    /// A uniformly random legal action for each game, shape ``(n,)`` int64.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.picks(py, false)
    }

    /// The greedy player's action for each game (a winning move, else a mill, else random).
    fn greedy_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.picks(py, true)
    }

    /// Applies one action per game; returns ``(obs, rewards, dones)`` with shapes
    /// ``(n, 8, 24)`` float32, ``(n,)`` float32, ``(n,)`` bool (new arrays at every call).
    /// ``actions`` is an int64 array of shape ``(n,)``. Raises
    /// ValueError (and applies nothing) if any action is illegal.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<(
        Bound<'py, PyArray3<f32>>,
        Bound<'py, PyArray1<f32>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        let actions = actions.as_slice()?;
        let n = self.slots.len();
        if actions.len() != n {
            return Err(PyValueError::new_err(format!(
                "expected {n} actions, got {}",
                actions.len()
            )));
        }
        // Written in full below before Python sees them.
        let (obs, rewards, dones) = unsafe {
            (
                PyArray3::<f32>::new_bound(py, [n, OBS_PLANES, 24], false),
                PyArray1::<f32>::new_bound(py, n, false),
                PyArray1::<bool>::new_bound(py, n, false),
            )
        };
        let (o, r, d) = unsafe {
            (
                obs.as_slice_mut().expect("contiguous"),
                rewards.as_slice_mut().expect("contiguous"),
                dones.as_slice_mut().expect("contiguous"),
            )
        };
        let cfg = self.cfg;
        let limit = self.actions_per_game();
        let slots = &mut self.slots;
        let pool = self.pool.as_ref();
        py.allow_threads(|| {
            // Checked on the games' threads too; nothing is applied unless every action is legal.
            let mut ok = vec![false; slots.len()];
            for_each_slot(pool, slots, &mut ok, CHUNK, |i, s, ok| {
                let a = actions[i];
                *ok = a >= 0 && (a as usize) < limit && s.is_legal(cfg, a as usize);
            });
            if let Some(i) = ok.iter().position(|&k| !k) {
                return Err(format!("game {i}: action {} is not legal", actions[i]));
            }
            step_all(pool, slots, actions, cfg, o, r, d);
            Ok(())
        })
        .map_err(PyValueError::new_err)?;
        Ok((obs, rewards, dones))
    }

    /// Plays ``steps`` rounds of random complete moves in every game entirely in Rust (no
    /// observation), finished games reset; returns ``(moves, games finished)``.
    fn play_random(&mut self, py: Python<'_>, steps: usize) -> (u64, u64) {
        let cfg = self.cfg;
        // Chunks of about CHUNK moves a call: a long call runs even a small batch in parallel.
        let chunk = (CHUNK / steps.max(1)).max(1);
        py.allow_threads(|| {
            let mut out = vec![(0u64, 0u64); self.slots.len()];
            for_each_slot(
                self.pool.as_ref(),
                &mut self.slots,
                &mut out,
                chunk,
                |_, s, o| {
                    let (m0, g0) = (s.moves, s.games);
                    for _ in 0..steps {
                        if s.core.pending().is_some() {
                            s.core.undo();
                        }
                        let m = random_move(&s.core, &mut s.rng);
                        s.play(m);
                        s.opponent_moves(cfg);
                        s.settle(cfg, cfg.agent);
                    }
                    *o = (s.moves - m0, s.games - g0);
                },
            );
            out.iter()
                .fold((0, 0), |(m, g), &(dm, dg)| (m + dm, g + dg))
        })
    }
}
