//! `mill-train`: trains the evaluation network from sample files of `mill-tb sample` and writes
//! it as a `.nnue` file (the engine's `EvalFile`, or `nets/` to build it in).

use clap::Parser;
use millstone::nnue::file;
use millstone::nnue::float::FloatNet;
use millstone::tablebase::sample::{self, Sample};
use millstone::Variant;
use millstone_tools::train::{self, Config};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Train the evaluation network on positions labelled by the tables.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// Sample files (`mill-tb sample`), all of one variant; repeat for several.
    #[arg(long = "data", required = true)]
    data: Vec<PathBuf>,
    /// Where to write the network.
    #[arg(long, short, required_unless_present = "check")]
    out: Option<PathBuf>,
    /// Train nothing: write this network file settled on the samples (the rows of features
    /// they always turn on folded into the biases, of those they never turn on zeroed, as
    /// every trained network is; see docs/nnue.md) to `--out`.
    #[arg(long, conflicts_with_all = ["check", "init"])]
    settle: Option<PathBuf>,
    /// Train nothing: measure this network file (the engine's integer inference) and the
    /// hand-tuned evaluation on the samples, per phase.
    #[arg(long)]
    check: Option<PathBuf>,
    /// Start from this network file (its weights dequantized) instead of random weights: a
    /// fine-tune on more data goes on from what the network knows, in a fraction of a fresh
    /// run's time. Its variant must be the samples'.
    #[arg(long)]
    init: Option<PathBuf>,
    /// Sets of dense layers: 1, or 8 (one per stage of the game: six of the placing phase, the
    /// moving phase, a side down to three pieces; the first layer is shared). With `--init`
    /// of a one-set network, 8 starts every set from its dense layers.
    #[arg(long, default_value_t = 1)]
    buckets: usize,
    /// First-layer units per view of a fresh network: 128 (the first networks' width, the
    /// file's first layer in 16 bits) or 256 (in 8 bits, so that nine's file stays under
    /// 2 MB). With `--init` the network's own width, which this must not contradict.
    #[arg(long)]
    hidden: Option<usize>,
    /// Passes over the training samples.
    #[arg(long, default_value_t = 4)]
    epochs: usize,
    /// Samples per step.
    #[arg(long, default_value_t = 8192)]
    batch: usize,
    /// Adam's step size at the start; it falls linearly to a tenth.
    #[arg(long, default_value_t = 2e-3)]
    lr: f32,
    /// Seed of the split, the order and the initial weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Share of the samples held out to measure the network.
    #[arg(long, default_value_t = 0.01)]
    holdout: f64,
    /// Use only the first N samples of each file.
    #[arg(long)]
    limit: Option<usize>,
    /// Threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

fn main() -> ExitCode {
    env_logger::init();
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mill-train: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> Result<(), String> {
    if let Some(t) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t.max(1))
            .build_global()
            .map_err(|e| e.to_string())?;
    }
    if cli.epochs == 0
        || cli.batch == 0
        || cli.lr.is_nan()
        || cli.lr <= 0.0
        || !(0.0..1.0).contains(&cli.holdout)
    {
        return Err("--epochs, --batch and --lr must be positive, --holdout in [0, 1)".into());
    }
    if cli.buckets != 1 && cli.buckets != millstone::nnue::BUCKETS {
        return Err(format!(
            "--buckets {}: 1 or {}",
            cli.buckets,
            millstone::nnue::BUCKETS
        ));
    }
    if let Some(h) = cli.hidden {
        if !millstone::nnue::WIDTHS.contains(&h) {
            return Err(format!(
                "--hidden {h}: one of {:?}",
                millstone::nnue::WIDTHS
            ));
        }
    }
    let start = Instant::now();
    let mut samples: Vec<Sample> = Vec::new();
    let mut sources = Vec::new();
    for path in &cli.data {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut s =
            sample::from_file_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(n) = cli.limit {
            s.truncate(n);
        }
        sources.push(format!(
            "{} ({} samples, fnv1a {:016x})",
            path.file_name().unwrap_or_default().to_string_lossy(),
            s.len(),
            millstone::tablebase::fnv1a64(&bytes)
        ));
        samples.extend(s);
    }
    let Some(first) = samples.first() else {
        return Err("the sample files hold no sample".into());
    };
    let variant = first.rules.variant;
    if samples.iter().any(|s| s.rules.variant != variant) {
        return Err("the samples mix nine and twelve: train one network per variant".into());
    }
    if let Some(path) = &cli.check {
        let net = file::load(path).map_err(|e| e.to_string())?;
        if net.variant != variant {
            return Err(format!(
                "{} is a network of {}",
                path.display(),
                net.variant.name()
            ));
        }
        println!("{}", train::check(&net, &samples).join("\n"));
        return Ok(());
    }
    let out = cli
        .out
        .as_ref()
        .expect("clap requires --out without --check");
    if let Some(path) = &cli.settle {
        let net = load_of(path, variant)?;
        let mut f = file::dequantize(&net);
        let settled = train::settle(&mut f, &samples);
        let description = format!(
            "{}; settled on {} samples from {}: {}",
            net.description,
            samples.len(),
            sources.join(", "),
            settled_summary(&settled)
        );
        return write_net(out, &f, variant, &description);
    }
    let cfg = Config {
        epochs: cli.epochs,
        batch: cli.batch,
        lr: cli.lr,
        seed: cli.seed,
        holdout: cli.holdout,
        buckets: cli.buckets,
        hidden: cli.hidden.unwrap_or(millstone::nnue::HIDDEN),
    };
    let init = match &cli.init {
        None => None,
        Some(path) => Some(load_of(path, variant)?),
    };
    if let (Some(net), Some(h)) = (&init, cli.hidden) {
        if net.hidden != h {
            return Err(format!(
                "--hidden {h}: the network of --init has {} units",
                net.hidden
            ));
        }
    }
    let n = samples.len();
    let (tr, va) = train::split(samples, &cfg);
    eprintln!(
        "mill-train: {} training and {} held-out samples of {} read in {:.1}s",
        tr.len(),
        va.len(),
        variant.name(),
        start.elapsed().as_secs_f64()
    );
    let report = |epoch: usize, seen: &train::Metrics, held: &train::Metrics| {
        eprintln!(
            "epoch {epoch} ({:.0}s): training {}; held out {}",
            start.elapsed().as_secs_f64(),
            seen.summary(),
            held.summary()
        );
    };
    let (mut net, from) = match &init {
        None => (train::train(&tr, &va, &cfg, report), String::new()),
        Some(net) => {
            let mut f = file::dequantize(net);
            if cli.buckets > f.buckets() {
                f = f.with_buckets(cli.buckets);
            }
            eprintln!(
                "mill-train: starting from {:016x}: held out {}",
                net.checksum,
                train::evaluate(&f, &va).summary()
            );
            (
                train::train_from(f, &tr, &va, &cfg, report),
                format!("; from network {:016x}", net.checksum),
            )
        }
    };
    let settled = train::settle(&mut net, &tr);
    let held = train::evaluate(&net, &va);
    let description = format!(
        "mill-train {}: {n} samples from {}{from}; seed {}, epochs {}, batch {}, lr {}, \
         holdout {}; held out: {}; {}; {:.0}s",
        env!("CARGO_PKG_VERSION"),
        sources.join(", "),
        cfg.seed,
        cfg.epochs,
        cfg.batch,
        cfg.lr,
        cfg.holdout,
        held.summary(),
        settled_summary(&settled),
        start.elapsed().as_secs_f64()
    );
    write_net(out, &net, variant, &description)
}

/// A network file of the samples' variant.
fn load_of(path: &Path, variant: Variant) -> Result<millstone::nnue::Network, String> {
    let net = file::load(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if net.variant != variant {
        return Err(format!(
            "{} is a network of {}",
            path.display(),
            net.variant.name()
        ));
    }
    Ok(net)
}

/// What `settle` did, for the description.
fn settled_summary(s: &train::Settled) -> String {
    format!(
        "features always on, folded into the biases: {:?}; never on, zeroed: {}",
        s.folded,
        s.zeroed.len()
    )
}

/// Quantizes `net`, checks the file by reading it back, writes it and says so.
fn write_net(
    out: &Path,
    net: &FloatNet,
    variant: Variant,
    description: &str,
) -> Result<(), String> {
    let bytes = file::to_bytes(net, variant, description);
    let checked = file::parse(&bytes).map_err(|e| e.to_string())?;
    std::fs::write(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    println!(
        "wrote {} ({} bytes, checksum {:016x}, {}): {description}",
        out.display(),
        bytes.len(),
        checked.checksum,
        variant.name()
    );
    Ok(())
}
