//! `millstone.VectorEnv`: n games stepped in Rust with the GIL released.

use crate::core::{Core, OBS_LEN, OBS_PLANES};
use crate::encoding::{full_id, NUM_FULL, NUM_TWO_STEP};
use crate::position::{rules_of, PyPosition};
use millstone::{Color, Move, Outcome, Position, Rules};
use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

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

/// A random legal move of a game in progress.
fn random_move(core: &Core, rng: &mut StdRng) -> Move {
    let l = core.legal();
    l[rng.gen_range(0..l.len())]
}

/// The greedy choice: a move that wins at once, else one that closes a mill, else any.
fn greedy_move(core: &Core, rng: &mut StdRng) -> Move {
    let l = core.legal();
    let us = core.to_move();
    let mut mills = 0usize;
    for &m in l {
        if m.removal().is_some() {
            let mut p = *core.position();
            p.make(m);
            if p.material(us.other()) < 3 || !millstone::movegen::has_legal_move(&p) {
                return m;
            }
            mills += 1;
        }
    }
    if mills > 0 {
        let k = rng.gen_range(0..mills);
        return *l.iter().filter(|m| m.removal().is_some()).nth(k).unwrap();
    }
    random_move(core, rng)
}

/// The greedy removal for a pending two-step move: a winning one if any, else random.
fn greedy_removal(core: &Core, pending: Move, rng: &mut StdRng) -> usize {
    let us = core.to_move();
    let cands: Vec<Move> = core
        .legal()
        .iter()
        .copied()
        .filter(|m| m.without_removal() == pending)
        .collect();
    for &m in &cands {
        let mut p = *core.position();
        p.make(m);
        if p.material(us.other()) < 3 || !millstone::movegen::has_legal_move(&p) {
            return m.removal().map_or(0, |r| r.index());
        }
    }
    let m = cands[rng.gen_range(0..cands.len())];
    m.removal().map_or(0, |r| r.index())
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

/// n games of mill stepped together in Rust.
///
/// ``VectorEnv(n, variant="nine", flying=True, seed=0, two_step=False, opponent=None,
/// agent="w")``. Actions are complete-move ids (15000) or, with ``two_step=True``, two-step ids
/// (600). ``step(actions)`` applies one action per game and returns ``(obs, rewards, dones)``;
/// a finished game is reset at once (``obs`` then shows its new start, ``results`` how the old
/// one ended). Without an opponent the caller plays both sides and the reward is for the side
/// that just acted; with ``opponent="random"`` or ``"greedy"`` the agent plays ``agent``'s side,
/// the opponent answers in Rust, and the reward is the agent's.
#[pyclass(module = "millstone._millstone", name = "VectorEnv")]
pub struct VectorEnv {
    games: Vec<Core>,
    rules: Rules,
    rng: StdRng,
    two_step: bool,
    opponent: Opponent,
    agent: Color,
    results: Vec<i8>,
    episode_len: Vec<u32>,
    finished_len: Vec<u32>,
    games_done: u64,
    moves_done: u64,
}

impl VectorEnv {
    fn actions_per_game(&self) -> usize {
        if self.two_step {
            NUM_TWO_STEP
        } else {
            NUM_FULL
        }
    }

    /// The opponent's moves until it is the agent's turn (or the game ends).
    fn opponent_moves(&mut self, i: usize) {
        while self.opponent != Opponent::SelfPlay
            && self.games[i].outcome().is_none()
            && self.games[i].to_move() != self.agent
        {
            let m = match self.opponent {
                Opponent::Random => random_move(&self.games[i], &mut self.rng),
                _ => greedy_move(&self.games[i], &mut self.rng),
            };
            self.games[i].play_legal(m);
            self.moves_done += 1;
            self.episode_len[i] += 1;
        }
    }

    fn reset_game(&mut self, i: usize) {
        self.games[i].reset();
        self.episode_len[i] = 0;
        self.opponent_moves(i);
    }

    fn observe_all(&self, out: &mut [f32]) {
        for (g, o) in self.games.iter().zip(out.chunks_mut(OBS_LEN)) {
            g.observe(o);
        }
    }

    /// One action per game, checked first; on error nothing is applied.
    fn step_inner(
        &mut self,
        actions: &[i64],
        rewards: &mut [f32],
        dones: &mut [bool],
    ) -> Result<(), String> {
        if actions.len() != self.games.len() {
            return Err(format!(
                "expected {} actions, got {}",
                self.games.len(),
                actions.len()
            ));
        }
        for (i, &a) in actions.iter().enumerate() {
            if a < 0 || a as usize >= self.actions_per_game() || !self.is_legal(i, a as usize) {
                return Err(format!("game {i}: action {a} is not legal"));
            }
        }
        for (i, &a) in actions.iter().enumerate() {
            let mover = self.games[i].to_move();
            let completed = if self.two_step {
                self.games[i].apply_two_step(a as usize)?
            } else {
                self.games[i].apply_full(a as usize)?;
                true
            };
            if completed {
                self.moves_done += 1;
                self.episode_len[i] += 1;
            }
            self.opponent_moves(i);
            let side = if self.opponent == Opponent::SelfPlay {
                mover
            } else {
                self.agent
            };
            self.results[i] = 0;
            rewards[i] = 0.0;
            dones[i] = false;
            if let Some(o) = self.games[i].outcome() {
                rewards[i] = reward_for(o, side);
                dones[i] = true;
                self.results[i] = result_code(o);
                self.finished_len[i] = self.episode_len[i];
                self.games_done += 1;
                self.reset_game(i);
            }
        }
        Ok(())
    }

    fn is_legal(&self, i: usize, a: usize) -> bool {
        let g = &self.games[i];
        if self.two_step {
            let mut v = Vec::new();
            g.legal_two_step_ids(&mut v);
            v.contains(&a)
        } else {
            g.pending().is_none() && g.legal().iter().any(|&m| full_id(m) == a)
        }
    }

    fn random_ids(&mut self, greedy: bool) -> Vec<i64> {
        let mut out = Vec::with_capacity(self.games.len());
        let mut ids = Vec::new();
        for g in &self.games {
            if self.two_step {
                ids.clear();
                g.legal_two_step_ids(&mut ids);
                let pick = match g.pending() {
                    None if greedy => crate::encoding::base_id(greedy_move(g, &mut self.rng)),
                    Some(p) if greedy => greedy_removal(g, p, &mut self.rng),
                    _ => ids[self.rng.gen_range(0..ids.len())],
                };
                out.push(pick as i64);
            } else {
                let m = if greedy {
                    greedy_move(g, &mut self.rng)
                } else {
                    random_move(g, &mut self.rng)
                };
                out.push(full_id(m) as i64);
            }
        }
        out
    }
}

#[pymethods]
impl VectorEnv {
    #[new]
    #[pyo3(signature = (n, variant = "nine", flying = true, seed = 0, two_step = false, opponent = None, agent = "w"))]
    fn new(
        n: usize,
        variant: &str,
        flying: bool,
        seed: u64,
        two_step: bool,
        opponent: Option<&str>,
        agent: &str,
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
        let mut env = VectorEnv {
            games: vec![Core::new(Position::new(rules)); n],
            rules,
            rng: StdRng::seed_from_u64(seed),
            two_step,
            opponent,
            agent: crate::position::parse_color(agent)?,
            results: vec![0; n],
            episode_len: vec![0; n],
            finished_len: vec![0; n],
            games_done: 0,
            moves_done: 0,
        };
        for i in 0..n {
            env.reset_game(i);
        }
        Ok(env)
    }

    /// Number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        self.games.len()
    }

    fn __len__(&self) -> usize {
        self.games.len()
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
        if let Some(s) = seed {
            self.rng = StdRng::seed_from_u64(s);
        }
        for i in 0..self.games.len() {
            self.reset_game(i);
        }
        self.results.fill(0);
        self.observations(py)
    }

    /// The observations, shape ``(n, 8, 24)`` float32, each from its side to move's view.
    fn observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f32>> {
        let mut obs = vec![0f32; self.games.len() * OBS_LEN];
        self.observe_all(&mut obs);
        PyArray1::from_vec_bound(py, obs)
            .reshape([self.games.len(), OBS_PLANES, 24])
            .expect("shape")
    }

    /// Legal-action masks, shape ``(n, num_actions)`` bool.
    fn action_masks<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        let a = self.actions_per_game();
        let mut mask = vec![false; self.games.len() * a];
        let mut ids = Vec::new();
        for (g, row) in self.games.iter().zip(mask.chunks_mut(a)) {
            ids.clear();
            if self.two_step {
                g.legal_two_step_ids(&mut ids);
            } else {
                g.legal_full_ids(&mut ids);
            }
            for &i in &ids {
                row[i] = true;
            }
        }
        PyArray1::from_vec_bound(py, mask)
            .reshape([self.games.len(), a])
            .expect("shape")
    }

    /// The legal action ids of game ``i``.
    fn legal_actions(&self, i: usize) -> PyResult<Vec<usize>> {
        let g = self
            .games
            .get(i)
            .ok_or_else(|| PyValueError::new_err(format!("no game {i}")))?;
        let mut ids = Vec::new();
        if self.two_step {
            g.legal_two_step_ids(&mut ids);
        } else {
            g.legal_full_ids(&mut ids);
        }
        Ok(ids)
    }

    /// Whose turn it is in each game: 0 White, 1 Black, shape ``(n,)`` int8.
    fn to_play<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        PyArray1::from_vec_bound(
            py,
            self.games
                .iter()
                .map(|g| g.to_move().index() as i8)
                .collect(),
        )
    }

    /// How each game that ended in the last step ended: 0 not ended, 1 White won, 2 Black won,
    /// 3 draw; shape ``(n,)`` int8.
    #[getter]
    fn results<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        PyArray1::from_vec_bound(py, self.results.clone())
    }

    /// Moves (plies) of each game's last finished episode, shape ``(n,)`` uint32.
    #[getter]
    fn episode_lengths<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_vec_bound(py, self.finished_len.clone())
    }

    /// Games finished since the environment was made.
    #[getter]
    fn games_finished(&self) -> u64 {
        self.games_done
    }

    /// Complete moves played since the environment was made (opponents' included).
    #[getter]
    fn moves_played(&self) -> u64 {
        self.moves_done
    }

    /// Game ``i`` as a ``Position`` (a copy, with its history).
    fn position(&self, i: usize) -> PyResult<PyPosition> {
        self.games
            .get(i)
            .map(|g| PyPosition { core: g.clone() })
            .ok_or_else(|| PyValueError::new_err(format!("no game {i}")))
    }

    /// The position strings of all games.
    fn fens(&self) -> Vec<String> {
        self.games.iter().map(|g| g.position().to_fen()).collect()
    }

    /// A uniformly random legal action for each game, shape ``(n,)`` int64.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let ids = py.allow_threads(|| self.random_ids(false));
        PyArray1::from_vec_bound(py, ids)
    }

    /// The greedy player's action for each game (a winning move, else a mill, else random).
    fn greedy_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let ids = py.allow_threads(|| self.random_ids(true));
        PyArray1::from_vec_bound(py, ids)
    }

    /// Applies one action per game; returns ``(obs, rewards, dones)`` with shapes
    /// ``(n, 8, 24)`` float32, ``(n,)`` float32, ``(n,)`` bool. Raises ValueError (and applies
    /// nothing) if any action is illegal.
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
        let actions = actions.as_slice()?.to_vec();
        let n = self.games.len();
        let (obs, rewards, dones) = py
            .allow_threads(|| {
                let mut rewards = vec![0f32; n];
                let mut dones = vec![false; n];
                self.step_inner(&actions, &mut rewards, &mut dones)?;
                let mut obs = vec![0f32; n * OBS_LEN];
                self.observe_all(&mut obs);
                Ok::<_, String>((obs, rewards, dones))
            })
            .map_err(PyValueError::new_err)?;
        Ok((
            PyArray1::from_vec_bound(py, obs)
                .reshape([n, OBS_PLANES, 24])
                .expect("shape"),
            PyArray1::from_vec_bound(py, rewards),
            PyArray1::from_vec_bound(py, dones),
        ))
    }

    /// Plays ``steps`` rounds of random moves in every game entirely in Rust (no observation),
    /// finished games reset; returns ``(moves, games finished)``. For speed measurements.
    fn play_random(&mut self, py: Python<'_>, steps: usize) -> (u64, u64) {
        py.allow_threads(|| {
            let (m0, g0) = (self.moves_done, self.games_done);
            for _ in 0..steps {
                for i in 0..self.games.len() {
                    let m = random_move(&self.games[i], &mut self.rng);
                    if self.games[i].pending().is_some() {
                        self.games[i].undo();
                    }
                    self.games[i].play_legal(m);
                    self.moves_done += 1;
                    self.episode_len[i] += 1;
                    self.opponent_moves(i);
                    if let Some(o) = self.games[i].outcome() {
                        self.results[i] = result_code(o);
                        self.finished_len[i] = self.episode_len[i];
                        self.games_done += 1;
                        self.reset_game(i);
                    }
                }
            }
            (self.moves_done - m0, self.games_done - g0)
        })
    }
}
