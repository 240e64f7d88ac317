//! The network file (`.nnue`): a checked header, the integer weights, a checksum.
//!
//! Little-endian throughout:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | `MILLNNUE` |
//! | 4 | format version, 1 to 3 |
//! | 4 | variant: 0 nine, 1 twelve |
//! | 4 × 4 | features per view (this build's or the first shape's), first-layer units (one of [`WIDTHS`]), second, third (this build's) |
//! | 4 | version 2 and 3: sets of dense layers, 1 or [`BUCKETS`] (version 1: one) |
//! | 4 + n | the description's length and its UTF-8 text (how the net was trained) |
//! | 2 × each | first layer's weights (feature-major), `i16` at 255 per unit; version 3: 1 × each, `i8` at 255 / 4 per unit (read as four times that in an `i16`) |
//! | 2 × each | first layer's biases, `i16` at 255 per unit |
//! | | each dense layer's weights (`i16` at 256 per unit, one row per output, each set's in turn) and biases (`i32` at 255 × 256, each set's in turn) |
//! | 8 | FNV-1a 64 of every byte before it |
//!
//! A file that is short, long, of another shape or whose checksum differs is refused whole.

use super::float::FloatNet;
use super::{features, Network, BUCKETS, HIDDEN, L1, L2, OUTPUTS, QA, QB, WIDTHS};
use crate::tablebase::fnv1a64 as fnv1a;
use crate::types::Variant;
use std::path::Path;

/// The built-in network of nine (made by `mill-train`; see docs/nnue.md).
pub static NINE: &[u8] = include_bytes!("../../nets/nine.nnue");
/// The built-in network of twelve without flying, trained on those tables; its flying row is
/// zero (settled: the feature was never on).
pub static TWELVE: &[u8] = include_bytes!("../../nets/twelve.nnue");
/// The built-in network of twelve with flying, trained on those tables; its flying row is
/// folded into the biases (settled: the feature was always on).
pub static TWELVE_FLYING: &[u8] = include_bytes!("../../nets/twelve-flying.nnue");

const MAGIC: &[u8; 8] = b"MILLNNUE";
/// The newest format: version 2 adds the number of dense-layer sets; version 3 stores the first
/// layer's weights in 8 bits, so that a first layer twice as wide still keeps the file under
/// 2 MB. A network is written in the oldest version that holds it: one of the first width and
/// one set as version 1, byte for byte as before, of the first width as version 2, wider as 3.
const VERSION: u32 = 3;
/// What a first-layer weight stored in 8 bits (version 3) is multiplied by when read: its
/// scale is `QA / FT8_STEP` per unit, and the largest weight (`float::FT_CLIP`, 1.7) is 108.
const FT8_STEP: i16 = 4;
/// The longest description accepted.
const MAX_DESCRIPTION: usize = 64 << 10;

/// Why a network file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetError {
    /// It could not be read.
    Io(String),
    /// Its contents are wrong; the text says how.
    Invalid(String),
}

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetError::Io(e) => write!(f, "cannot read the network file: {e}"),
            NetError::Invalid(e) => write!(f, "not a valid network file: {e}"),
        }
    }
}

impl std::error::Error for NetError {}

fn quantize(v: &[f32], scale: f32) -> impl Iterator<Item = i16> + '_ {
    v.iter()
        .map(move |&w| (w * scale).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16)
}

fn quantize_bias(v: &[f32]) -> impl Iterator<Item = i32> + '_ {
    v.iter().map(|&b| (b * (QA * QB) as f32).round() as i32)
}

/// The file of a float network, quantized.
pub fn to_bytes(net: &FloatNet, variant: Variant, description: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let (buckets, hidden) = (net.buckets(), net.hidden());
    assert!(WIDTHS.contains(&hidden), "a first layer of {hidden} units");
    let version: u32 = match (hidden > HIDDEN, buckets) {
        (true, _) => 3,
        (false, 1) => 1,
        (false, _) => 2,
    };
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(variant as u32).to_le_bytes());
    for d in [features::COUNT, hidden, L1, L2] {
        out.extend_from_slice(&(d as u32).to_le_bytes());
    }
    if version >= 2 {
        out.extend_from_slice(&(buckets as u32).to_le_bytes());
    }
    let desc = &description.as_bytes()[..description.len().min(MAX_DESCRIPTION)];
    out.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    out.extend_from_slice(desc);
    let qa = QA as f32;
    let qb = QB as f32;
    if version == 3 {
        for w in quantize(&net.ft_w, qa / FT8_STEP as f32) {
            out.push(w.clamp(i8::MIN as i16, i8::MAX as i16) as i8 as u8);
        }
    } else {
        for w in quantize(&net.ft_w, qa) {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    for w in quantize(&net.ft_b, qa) {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for (w, b) in [
        (&net.l1_w, &net.l1_b),
        (&net.l2_w, &net.l2_b),
        (&net.out_w, &net.out_b),
    ] {
        for q in quantize(w, qb) {
            out.extend_from_slice(&q.to_le_bytes());
        }
        for q in quantize_bias(b) {
            out.extend_from_slice(&q.to_le_bytes());
        }
    }
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The float network whose quantization is `net` (each integer divided by its scale): the
/// starting point of a fine-tune (`mill-train --init`), so that training goes on from a
/// shipped network instead of from random weights. Quantizing it again gives the same weights.
pub fn dequantize(net: &Network) -> FloatNet {
    let f = |v: &[i16], scale: i32| v.iter().map(|&w| w as f32 / scale as f32).collect();
    let b = |v: &[i32]| v.iter().map(|&w| w as f32 / (QA * QB) as f32).collect();
    FloatNet {
        ft_w: f(&net.ft_w, QA),
        ft_b: f(&net.ft_b, QA),
        l1_w: f(&net.l1_w, QB),
        l1_b: b(&net.l1_b),
        l2_w: f(&net.l2_w, QB),
        l2_b: b(&net.l2_b),
        out_w: f(&net.out_w, QB),
        out_b: b(&net.out_b),
    }
}

/// Reads little-endian values off the front of a slice.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], NetError> {
        if self.rest.len() < n {
            return Err(NetError::Invalid("the file is too short".into()));
        }
        let (a, b) = self.rest.split_at(n);
        self.rest = b;
        Ok(a)
    }

    fn u32(&mut self) -> Result<u32, NetError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, NetError> {
        Ok(self
            .take(2 * n)?
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }

    /// `n` bytes as signed values, each times `step`.
    fn i8s(&mut self, n: usize, step: i16) -> Result<Vec<i16>, NetError> {
        Ok(self
            .take(n)?
            .iter()
            .map(|&b| b as i8 as i16 * step)
            .collect())
    }

    fn i32s(&mut self, n: usize) -> Result<Vec<i32>, NetError> {
        Ok(self
            .take(4 * n)?
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect())
    }
}

/// A network from a file's bytes, checked.
pub fn parse(bytes: &[u8]) -> Result<Network, NetError> {
    let bad = |s: &str| NetError::Invalid(s.to_string());
    if bytes.len() < MAGIC.len() + 8 || &bytes[..8] != MAGIC {
        return Err(bad("it does not start with MILLNNUE"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let checksum = u64::from_le_bytes(sum.try_into().unwrap());
    if fnv1a(body) != checksum {
        return Err(bad(
            "the checksum does not match (a damaged or truncated file)",
        ));
    }
    let mut r = Reader { rest: &body[8..] };
    let version = r.u32()?;
    if !(1..=VERSION).contains(&version) {
        return Err(NetError::Invalid(format!(
            "format version {version}, this build reads 1 to {VERSION}"
        )));
    }
    let variant = match r.u32()? {
        0 => Variant::Nine,
        1 => Variant::Twelve,
        v => return Err(NetError::Invalid(format!("unknown variant {v}"))),
    };
    let shape = [r.u32()?, r.u32()?, r.u32()?, r.u32()?];
    let hidden = shape[1] as usize;
    if ![features::COUNT, features::COUNT_V1].contains(&(shape[0] as usize))
        || !WIDTHS.contains(&hidden)
        || shape[2..] != [L1 as u32, L2 as u32]
    {
        return Err(NetError::Invalid(format!(
            "shape {shape:?} (features, layers), this build reads [{} or {}, {WIDTHS:?}, {L1}, {L2}]",
            features::COUNT,
            features::COUNT_V1
        )));
    }
    let buckets = if version >= 2 { r.u32()? as usize } else { 1 };
    if buckets != 1 && buckets != BUCKETS {
        return Err(NetError::Invalid(format!(
            "{buckets} sets of dense layers, this build reads 1 or {BUCKETS}"
        )));
    }
    let n = r.u32()? as usize;
    if n > MAX_DESCRIPTION {
        return Err(bad("the description is too long"));
    }
    let description = String::from_utf8_lossy(r.take(n)?).into_owned();
    let mut net = Network {
        variant,
        description,
        checksum,
        neighbourhoods: shape[0] as usize == features::COUNT,
        buckets,
        hidden,
        ft_w: {
            let n = shape[0] as usize * hidden;
            let mut w = if version == 3 {
                r.i8s(n, FT8_STEP)?
            } else {
                r.i16s(n)?
            };
            w.resize(features::COUNT * hidden, 0);
            w
        },
        ft_b: r.i16s(hidden)?,
        l1_w: r.i16s(buckets * L1 * 2 * hidden)?,
        l1_b: r.i32s(buckets * L1)?,
        l2_w: r.i16s(buckets * L2 * L1)?,
        l2_b: r.i32s(buckets * L2)?,
        out_w: r.i16s(buckets * OUTPUTS * L2)?,
        out_b: r.i32s(buckets * OUTPUTS)?,
        l1_pairs: Vec::new(),
        l2_pairs: Vec::new(),
    };
    if !r.rest.is_empty() {
        return Err(bad("bytes left over after the weights"));
    }
    net.l1_pairs = super::by_input_pairs(&net.l1_w, 2 * hidden);
    net.l2_pairs = super::by_input_pairs(&net.l2_w, L1);
    Ok(net)
}

/// A network from a file.
pub fn load(path: &Path) -> Result<Network, NetError> {
    let bytes =
        std::fs::read(path).map_err(|e| NetError::Io(format!("{}: {e}", path.display())))?;
    parse(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::{Accumulator, MAX_HIDDEN};
    use crate::position::Position;
    use crate::types::Rules;
    use rand::{Rng, SeedableRng};

    #[test]
    fn round_trip_and_damage() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        for (hidden, version) in [(HIDDEN, 1), (MAX_HIDDEN, 3)] {
            let f = FloatNet::random_shaped(&mut rng, hidden, 1);
            let bytes = to_bytes(&f, Variant::Nine, "unit test");
            assert_eq!(bytes[8], version);
            let net = parse(&bytes).unwrap();
            assert_eq!(net.hidden, hidden);
            refused_when_damaged(&bytes);
        }
        let bytes = to_bytes(&FloatNet::random(&mut rng), Variant::Nine, "unit test");
        let net = parse(&bytes).unwrap();
        assert_eq!(net.description, "unit test");
        assert_eq!(net.variant, Variant::Nine);
        // A width this build does not know is refused with its shape named (the checksum
        // made right, so that the shape is what is judged).
        let mut wide = bytes[..bytes.len() - 8].to_vec();
        wide[20..24].copy_from_slice(&192u32.to_le_bytes());
        wide.extend_from_slice(&fnv1a(&wide).to_le_bytes());
        let e = parse(&wide).unwrap_err().to_string();
        assert!(e.contains("shape [6473, 192, 32, 32]"), "{e}");
    }

    fn refused_when_damaged(bytes: &[u8]) {
        // Every single flipped byte and every truncation is refused.
        for i in (0..bytes.len()).step_by(bytes.len() / 2000 + 1) {
            let mut b = bytes.to_vec();
            b[i] ^= 0x10;
            assert!(parse(&b).is_err(), "byte {i} flipped");
        }
        for n in [0, 7, 8, 100, bytes.len() - 1] {
            assert!(parse(&bytes[..n]).is_err(), "cut at {n}");
        }
        assert!(parse(b"").is_err());
    }

    /// Dequantizing a file's network and quantizing it again gives the same weights, so a
    /// warm start begins exactly where the shipped network is; the built-in net included.
    #[test]
    fn dequantize_round_trips() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let f = FloatNet::random(&mut rng);
        let bytes = to_bytes(&f, Variant::Nine, "d");
        let net = parse(&bytes).unwrap();
        assert_eq!(to_bytes(&dequantize(&net), Variant::Nine, "d"), bytes);
        let nine = parse(NINE).unwrap();
        let again = parse(&to_bytes(
            &dequantize(&nine),
            nine.variant,
            &nine.description,
        ))
        .unwrap();
        assert_eq!(again.checksum, nine.checksum);
        // And the float logits are the integer ones within the quantization's error.
        let pos = Position::new(Rules::default());
        let q = nine.logits(&Accumulator::new(&nine, &pos), &pos);
        let r = dequantize(&nine).logits(&pos);
        for k in 0..3 {
            assert!((q[k] - r[k]).abs() < 0.05, "{q:?} against {r:?}");
        }
    }

    /// A file of the first networks' shape (no neighbourhood features; twelve's network is
    /// one) is read with zero rows for the features it lacks, so it evaluates as it was trained.
    #[test]
    fn first_shape_reads_with_zero_rows() {
        let shape = |b: &[u8]| u32::from_le_bytes(b[16..20].try_into().unwrap()) as usize;
        assert_eq!(shape(TWELVE), features::COUNT_V1);
        let twelve = parse(TWELVE).unwrap();
        assert_eq!(twelve.ft_w.len(), features::COUNT * HIDDEN);
        let before = features::COUNT_V1 * HIDDEN;
        assert!(twelve.ft_w[..before].iter().any(|&w| w != 0));
        assert!(twelve.ft_w[before..].iter().all(|&w| w == 0));
        assert_eq!(shape(NINE), features::COUNT);
    }

    /// The integer inference follows the float network within the quantization's error, with
    /// one set of dense layers and with a set for each stage of the game, and with the wide
    /// first layer stored in 8 bits.
    #[test]
    fn integer_inference_follows_float() {
        for (hidden, buckets) in [(HIDDEN, 1), (HIDDEN, BUCKETS), (MAX_HIDDEN, BUCKETS)] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(5);
            let f = FloatNet::random_shaped(&mut rng, hidden, buckets);
            let bytes = to_bytes(&f, Variant::Nine, "");
            let net = parse(&bytes).unwrap();
            assert_eq!((net.hidden, net.buckets), (hidden, buckets));
            assert_eq!(dequantize(&net).buckets(), buckets);
            assert_eq!(to_bytes(&dequantize(&net), Variant::Nine, ""), bytes);
            // The inference's own rounding (the dense layers'), from the weights the file
            // holds; then with the first layer's rounding to the file's step too, which for
            // 8 bits is four times the 16 bits' (a trained network of nine lost 0.04 % of
            // its held-out accuracy to it: docs/nnue.md).
            follows(&dequantize(&net), &net, &mut rng, 0.08);
            let first_layer = if hidden > HIDDEN { 0.2 } else { 0.08 };
            follows(&f, &net, &mut rng, first_layer);
        }
    }

    fn follows(f: &FloatNet, net: &Network, rng: &mut impl Rng, tolerance: f32) {
        let mut pos = Position::new(Rules::default());
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..300 {
            if pos.outcome().is_some() {
                break;
            }
            seen.insert(crate::nnue::bucket_of(&pos, net.buckets));
            let acc = Accumulator::new(net, &pos);
            let q = net.logits(&acc, &pos);
            let r = f.logits(&pos);
            // An untrained net's sums are large and seldom clipped, so more of its rounding
            // errors (up to `features::MAX_ACTIVE` first-layer rows a view) reach the output
            // than a trained one's (0.05 for the built-in net, above).
            for k in 0..3 {
                assert!(
                    (q[k] - r[k]).abs() < tolerance,
                    "{pos}: {q:?} against {r:?}"
                );
            }
            let moves = pos.legal_moves();
            pos.make(moves[rng.gen_range(0..moves.len())]);
        }
        // The game went through every placing stage and into the moving phase.
        assert!(seen.len() >= net.buckets.min(7), "{seen:?}");
    }

    /// The limit on a built-in network's size (docs/nnue.md): each at most 2 MB.
    #[test]
    fn builtin_files_are_at_most_two_megabytes() {
        assert!(NINE.len() <= 2_000_000, "{}", NINE.len());
        assert!(TWELVE.len() <= 2_000_000, "{}", TWELVE.len());
        assert!(TWELVE_FLYING.len() <= 2_000_000, "{}", TWELVE_FLYING.len());
    }

    /// Copying a one-set network into every bucket changes no evaluation; nine's built-in
    /// network has a set for each stage.
    #[test]
    fn bucket_copies_evaluate_as_the_one_set() {
        assert_eq!(parse(NINE).unwrap().buckets, BUCKETS);
        assert_eq!(parse(TWELVE).unwrap().buckets, 1);
        let mut rng = rand::rngs::StdRng::seed_from_u64(6);
        let one = FloatNet::random(&mut rng);
        let nine = parse(&to_bytes(&one, Variant::Nine, "one")).unwrap();
        let many = dequantize(&nine).with_buckets(BUCKETS);
        let net = parse(&to_bytes(&many, Variant::Nine, "copies")).unwrap();
        assert_eq!(net.buckets, BUCKETS);
        let mut rng = rand::rngs::StdRng::seed_from_u64(6);
        let mut pos = Position::new(Rules::default());
        for _ in 0..200 {
            if pos.outcome().is_some() {
                break;
            }
            let (a, b) = (Accumulator::new(&nine, &pos), Accumulator::new(&net, &pos));
            assert_eq!(nine.raw_output(&a, &pos), net.raw_output(&b, &pos), "{pos}");
            let moves = pos.legal_moves();
            pos.make(moves[rng.gen_range(0..moves.len())]);
        }
    }
}
