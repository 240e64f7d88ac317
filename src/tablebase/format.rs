//! A solved sub-space in memory, and its file format (version 2, made for probing).
//!
//! A file has four parts: a 128-byte header, the *W/D/L part* that the search reads in the
//! tree (1.6 bits a slot, plus 1 byte per 64 slots), the block index, and the *distance part*
//! that the root needs, in compressed blocks. All numbers are little-endian.
//!
//! # Header
//!
//! | offset | size | field                                                             |
//! |--------|------|-------------------------------------------------------------------|
//! | 0      | 8    | magic `MILLTB\r\n` (the line ending catches text-mode copies)     |
//! | 8      | 2    | format version ([`VERSION`], 2)                                   |
//! | 10     | 1    | variant: 9 or 12                                                  |
//! | 11     | 1    | flying: 0 or 1                                                    |
//! | 12     | 1    | w, pieces of the side to move                                     |
//! | 13     | 1    | b, pieces of the other side                                       |
//! | 14     | 2    | `real_max`: the longest distance of a win or loss that is at most 100 |
//! | 16     | 8    | n, slot count (the sub-space's [`SubIndex::len`])                  |
//! | 24     | 8    | positions: canonical slots (distinct positions up to symmetry)    |
//! | 32     | 8    | wins (positions, distance <= 100)                                 |
//! | 40     | 8    | draws (positions)                                                 |
//! | 48     | 8    | losses (positions, distance <= 100)                               |
//! | 56     | 8    | wins spoilt by the 100-ply rule (distance > 100, positions)        |
//! | 64     | 8    | losses saved by the 100-ply rule (distance > 100, positions)       |
//! | 72     | 2    | longest win distance                                              |
//! | 74     | 2    | longest loss distance                                             |
//! | 76     | 4    | k, slots per distance block                                       |
//! | 80     | 8    | offset of the W/D/L part (128)                                    |
//! | 88     | 8    | offset of the block index (the end of the W/D/L part, rounded up to 8) |
//! | 96     | 8    | FNV-1a 64 of the W/D/L part (`ceil(n / 5) + ceil(n / g)` bytes)    |
//! | 104    | 8    | FNV-1a 64 of the block index                                      |
//! | 112    | 4    | g, slots per group of the W/D/L part's maxima                     |
//! | 116    | 4    | reserved, 0                                                       |
//! | 120    | 8    | FNV-1a 64 of header bytes 0..120                                  |
//!
//! # W/D/L part
//!
//! First the digits: one base-3 digit per slot, five slots a byte: slot `i` is digit `i % 5`
//! of byte `i / 5` (`byte = d0 + 3 d1 + 9 d2 + 27 d3 + 81 d4`, so bytes above 242 never
//! occur). Digit 1 is a win with distance <= 100, 2 a loss with distance <= 100, 0 everything
//! else: draws, and results the 100-ply rule spoils even with the counter at 0 (distance
//! > 100), which are draws under the rules whatever the counter.
//!
//! Then the maxima, `ceil(n / g)` bytes: byte `j` is the longest distance of a digit 1 or 2
//! among slots `j g .. (j + 1) g` (0 if none). With the counter at `c`, a digit 1 or 2 of slot
//! `i` is the real result when `c + max[i / g] <= 100`; otherwise the distance decides, and
//! the probe reads it from the distance part (see [`super::TableFile::wdl`]). With g = 64 this
//! costs 0.125 bits a slot and, on nine-fly 4v6 and 6v4 (whose longest real distances are 100
//! and 99), leaves 14% and 27% of decisive probes at counters 0..30 to the distance part,
//! against 97% and 94% with one maximum per table.
//!
//! The part is checked against its checksum when the file is opened.
//!
//! Zero padding after the W/D/L part up to the block index offset.
//!
//! # Block index
//!
//! With `m = ceil(n / k)` blocks: `m + 1` u64 file offsets (block `j` spans
//! `offset[j] .. offset[j + 1]`, and `offset[m]` is the file length, so a truncated file is
//! refused at open), then `m` u64 FNV-1a 64 checksums, one per stored block.
//!
//! # Distance part
//!
//! Block `j` holds slots `j k .. min((j + 1) k, n)`: their [`Value::to_u16`] codes, the low
//! bytes of all slots first and then the high bytes (the high bytes mostly repeat the W/D/L
//! digit and compress to almost nothing), compressed as one zstd frame; a block that zstd
//! would not shrink is stored raw (its stored length is then exactly twice its slot count).
//! A block's checksum is verified each time it is decoded; a damaged block is an error for the
//! probes that need it, never a wrong value.

use super::index::SubIndex;
use super::value::{Value, LIMIT};
use crate::types::{Rules, Variant};
use rayon::prelude::*;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// File magic.
pub const MAGIC: [u8; 8] = *b"MILLTB\r\n";
/// File format version.
pub const VERSION: u16 = 2;
/// Header size in bytes.
pub const HEADER_LEN: usize = 128;
/// Slots per distance block in the files we write.
pub const BLOCK_SLOTS: u32 = 8192;
/// The zstd level of the distance blocks: 3 wrote the files of nine's job 5v7 about 1.4 times
/// as fast as 6 (5.0 s against 6.9 s), for files about 9 % bigger.
pub const ZSTD_LEVEL: i32 = 3;
/// Slots per group of the W/D/L part's maxima in the files we write.
pub const GROUP_SLOTS: u32 = 64;

/// W/D/L digit: a draw, or a result spoilt by the 100-ply rule at any counter.
pub const DIGIT_OTHER: u8 = 0;
/// W/D/L digit: a win in at most 100 plies.
pub const DIGIT_WIN: u8 = 1;
/// W/D/L digit: a loss in at most 100 plies.
pub const DIGIT_LOSS: u8 = 2;

/// For each byte of the W/D/L part, its five digits (bytes above 242 never occur).
pub(crate) static DIGITS: [[u8; 5]; 256] = {
    let mut t = [[0u8; 5]; 256];
    let mut b = 0;
    while b < 256 {
        let mut x = b;
        let mut i = 0;
        while i < 5 {
            t[b][i] = (x % 3) as u8;
            x /= 3;
            i += 1;
        }
        b += 1;
    }
    t
};

/// The W/D/L digit of a stored value.
#[inline]
pub const fn digit_of(v: Value) -> u8 {
    match v {
        Value::Win(d) if d <= LIMIT => DIGIT_WIN,
        Value::Loss(d) if d <= LIMIT => DIGIT_LOSS,
        _ => DIGIT_OTHER,
    }
}

/// Why a table could not be read or written.
#[derive(Debug)]
pub enum TbError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// The file is not a table of the expected sub-space, or is damaged.
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TbError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TbError::Format { path, reason } => {
                write!(f, "{}: not a valid table: {reason}", path.display())
            }
        }
    }
}

impl std::error::Error for TbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TbError::Io { source, .. } => Some(source),
            TbError::Format { .. } => None,
        }
    }
}

/// FNV-1a, 64 bits: enough to catch damaged files, and a few lines instead of a dependency.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_paced(bytes, &|| {})
}

/// [`fnv1a64`], calling `pace` before each megabyte (a check in the background yields there).
pub(crate) fn fnv1a64_paced(bytes: &[u8], pace: &dyn Fn()) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for chunk in bytes.chunks(1 << 20) {
        pace();
        for &b in chunk {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The file name of a sub-space, such as `nine-fly-3v4.mtb`.
pub fn file_name(rules: Rules, w: u8, b: u8) -> String {
    format!(
        "{}-{}-{w}v{b}.mtb",
        rules.variant.name(),
        if rules.flying { "fly" } else { "nofly" }
    )
}

/// What a file's header says about its sub-space: counts per position (canonical slot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    /// Slots.
    pub slots: u64,
    /// Distinct positions up to symmetry (canonical slots).
    pub positions: u64,
    /// Wins within the 100-ply rule.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses within the 100-ply rule.
    pub losses: u64,
    /// Wins the 100-ply rule spoils (distance above 100): draws under the rules.
    pub spoilt_wins: u64,
    /// Losses the 100-ply rule saves (distance above 100): draws under the rules.
    pub spoilt_losses: u64,
    /// The longest distance of a win or loss within 100 plies.
    pub real_max: u16,
    /// The longest win distance (may be above 100).
    pub max_win: u16,
    /// The longest loss distance.
    pub max_loss: u16,
}

/// The parsed header of a version-2 file, and where its parts lie.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    /// The rules.
    pub rules: Rules,
    /// Pieces of the side to move.
    pub w: u8,
    /// Pieces of the other side.
    pub b: u8,
    /// The counts.
    pub stats: TableStats,
    /// Slots per distance block.
    pub block_slots: u32,
    /// Offset of the W/D/L part.
    pub wdl_offset: u64,
    /// Offset of the block index.
    pub index_offset: u64,
    /// Checksum of the W/D/L part.
    pub wdl_sum: u64,
    /// Checksum of the block index.
    pub index_sum: u64,
    /// Slots per group of the maxima.
    pub group_slots: u32,
}

impl Header {
    /// Bytes of the digits.
    pub fn digits_len(&self) -> u64 {
        self.stats.slots.div_ceil(5)
    }

    /// Offset of the maxima.
    pub fn maxima_offset(&self) -> u64 {
        self.wdl_offset + self.digits_len()
    }

    /// Bytes of the W/D/L part: digits and maxima.
    pub fn wdl_len(&self) -> u64 {
        self.digits_len() + self.stats.slots.div_ceil(self.group_slots as u64)
    }

    /// Number of distance blocks.
    pub fn blocks(&self) -> u64 {
        self.stats.slots.div_ceil(self.block_slots as u64)
    }

    /// Bytes of the block index.
    pub fn index_len(&self) -> u64 {
        (2 * self.blocks() + 1) * 8
    }

    fn to_bytes(self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        let s = &self.stats;
        h[0..8].copy_from_slice(&MAGIC);
        h[8..10].copy_from_slice(&VERSION.to_le_bytes());
        h[10] = self.rules.variant.pieces();
        h[11] = self.rules.flying as u8;
        h[12] = self.w;
        h[13] = self.b;
        h[14..16].copy_from_slice(&s.real_max.to_le_bytes());
        for (i, x) in [
            s.slots,
            s.positions,
            s.wins,
            s.draws,
            s.losses,
            s.spoilt_wins,
            s.spoilt_losses,
        ]
        .iter()
        .enumerate()
        {
            h[16 + 8 * i..24 + 8 * i].copy_from_slice(&x.to_le_bytes());
        }
        h[72..74].copy_from_slice(&s.max_win.to_le_bytes());
        h[74..76].copy_from_slice(&s.max_loss.to_le_bytes());
        h[76..80].copy_from_slice(&self.block_slots.to_le_bytes());
        h[80..88].copy_from_slice(&self.wdl_offset.to_le_bytes());
        h[88..96].copy_from_slice(&self.index_offset.to_le_bytes());
        h[96..104].copy_from_slice(&self.wdl_sum.to_le_bytes());
        h[104..112].copy_from_slice(&self.index_sum.to_le_bytes());
        h[112..116].copy_from_slice(&self.group_slots.to_le_bytes());
        let sum = fnv1a64(&h[0..120]);
        h[120..128].copy_from_slice(&sum.to_le_bytes());
        h
    }

    /// Parses and checks the header of a file of `file_len` bytes that should hold sub-space
    /// (w, b) under `rules`. Checks everything the header alone can tell, the file's length
    /// included (against the end offset of the index, by [`Header::check_parts`]).
    pub fn parse(bytes: &[u8], rules: Rules, w: u8, b: u8, path: &Path) -> Result<Header, TbError> {
        let bad = |reason: String| TbError::Format {
            path: path.to_path_buf(),
            reason,
        };
        if bytes.len() < HEADER_LEN {
            return Err(bad(format!(
                "{} bytes, shorter than the header (truncated)",
                bytes.len()
            )));
        }
        if bytes[0..8] != MAGIC {
            return Err(bad("wrong magic".into()));
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != VERSION {
            return Err(bad(format!(
                "format version {version}, expected {VERSION} (regenerate with mill-tb)"
            )));
        }
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8"));
        let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
        if fnv1a64(&bytes[0..120]) != u64_at(120) {
            return Err(bad("header checksum mismatch (the file is damaged)".into()));
        }
        let variant = match bytes[10] {
            9 => Variant::Nine,
            12 => Variant::Twelve,
            v => return Err(bad(format!("unknown variant code {v}"))),
        };
        let flying = match bytes[11] {
            0 => false,
            1 => true,
            v => return Err(bad(format!("bad flying flag {v}"))),
        };
        let found = Rules::new(variant, flying);
        if found != rules || bytes[12] != w || bytes[13] != b {
            return Err(bad(format!(
                "holds {} {}v{}, expected {} {w}v{b}",
                found, bytes[12], bytes[13], rules
            )));
        }
        let index = SubIndex::new(variant, w, b);
        let stats = TableStats {
            slots: u64_at(16),
            positions: u64_at(24),
            wins: u64_at(32),
            draws: u64_at(40),
            losses: u64_at(48),
            spoilt_wins: u64_at(56),
            spoilt_losses: u64_at(64),
            real_max: u16_at(14),
            max_win: u16_at(72),
            max_loss: u16_at(74),
        };
        if stats.slots != index.len() as u64 {
            return Err(bad(format!(
                "slot count {}, the sub-space has {}",
                stats.slots,
                index.len()
            )));
        }
        let h = Header {
            rules,
            w,
            b,
            stats,
            block_slots: u32::from_le_bytes(bytes[76..80].try_into().expect("4")),
            wdl_offset: u64_at(80),
            index_offset: u64_at(88),
            wdl_sum: u64_at(96),
            index_sum: u64_at(104),
            group_slots: u32::from_le_bytes(bytes[112..116].try_into().expect("4")),
        };
        if h.block_slots == 0 || h.block_slots > 1 << 24 {
            return Err(bad(format!("block size {} slots", h.block_slots)));
        }
        if !h.group_slots.is_power_of_two() || h.group_slots > 1 << 24 {
            return Err(bad(format!("group size {} slots", h.group_slots)));
        }
        if h.wdl_offset != HEADER_LEN as u64
            || h.index_offset != (h.wdl_offset + h.wdl_len()).next_multiple_of(8)
        {
            return Err(bad("part offsets do not fit the slot count".into()));
        }
        let index_end = h.index_offset + h.index_len();
        if (bytes.len() as u64) < index_end {
            return Err(bad(format!(
                "{} bytes, the block index ends at {index_end} (truncated)",
                bytes.len()
            )));
        }
        Ok(h)
    }

    /// Checks the W/D/L part and the block index of the whole file image `bytes` against their
    /// checksums, and the file length against the index. Reads `ceil(n / 5)` bytes plus the
    /// index, not the distance blocks.
    pub fn check_parts(&self, bytes: &[u8], path: &Path) -> Result<(), TbError> {
        self.check_parts_paced(bytes, path, &|| {})
    }

    /// [`Header::check_parts`], calling `pace` before each megabyte of the W/D/L part.
    pub(crate) fn check_parts_paced(
        &self,
        bytes: &[u8],
        path: &Path,
        pace: &dyn Fn(),
    ) -> Result<(), TbError> {
        let bad = |reason: String| TbError::Format {
            path: path.to_path_buf(),
            reason,
        };
        let wdl = &bytes[self.wdl_offset as usize..(self.wdl_offset + self.wdl_len()) as usize];
        if fnv1a64_paced(wdl, pace) != self.wdl_sum {
            return Err(bad(
                "W/D/L part checksum mismatch (the file is damaged)".into()
            ));
        }
        let (digits, maxima) = wdl.split_at(self.digits_len() as usize);
        if let Some(p) = digits.iter().position(|&x| x > 242) {
            return Err(bad(format!("W/D/L byte {p} holds {}", digits[p])));
        }
        if let Some(p) = maxima.iter().position(|&x| x as u16 > LIMIT) {
            return Err(bad(format!("W/D/L maximum {p} is {}", maxima[p])));
        }
        self.check_index(bytes, path)
    }

    /// The block index against its checksum and the file's length against the index: what
    /// decoding a distance block needs to stay within the file (each block has its own sum).
    /// Reads the index only, 8 bytes a block.
    pub(crate) fn check_index(&self, bytes: &[u8], path: &Path) -> Result<(), TbError> {
        let bad = |reason: String| TbError::Format {
            path: path.to_path_buf(),
            reason,
        };
        let index =
            &bytes[self.index_offset as usize..(self.index_offset + self.index_len()) as usize];
        if fnv1a64(index) != self.index_sum {
            return Err(bad(
                "block index checksum mismatch (the file is damaged)".into()
            ));
        }
        let m = self.blocks() as usize;
        let off = |j: usize| u64::from_le_bytes(index[8 * j..8 * j + 8].try_into().expect("8"));
        let first = self.index_offset + self.index_len();
        if off(0) != first {
            return Err(bad("the first block does not follow the index".into()));
        }
        for j in 0..m {
            if off(j + 1) < off(j) {
                return Err(bad(format!("block {j} has a negative length")));
            }
        }
        let end = off(m);
        if bytes.len() as u64 != end {
            return Err(bad(format!(
                "{} bytes, the blocks end at {end} ({})",
                bytes.len(),
                if (bytes.len() as u64) < end {
                    "truncated"
                } else {
                    "padded"
                }
            )));
        }
        Ok(())
    }
}

/// For each group of `g` slots, the longest distance of a win or loss within 100 plies.
fn maxima(entries: &[u16], g: usize) -> Vec<u8> {
    entries
        .par_chunks(g)
        .map(|group| {
            group
                .iter()
                .map(|&e| match Value::from_u16(e) {
                    Some(Value::Win(d) | Value::Loss(d)) if d <= LIMIT => d as u8,
                    _ => 0,
                })
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The stored bytes of block `j` of a checked file image, with its checksum.
pub(crate) fn block_bytes<'a>(h: &Header, bytes: &'a [u8], j: usize) -> (&'a [u8], u64) {
    let m = h.blocks() as usize;
    let base = h.index_offset as usize;
    let rd = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8")) as usize;
    let (from, to) = (rd(base + 8 * j), rd(base + 8 * j + 8));
    let sum = rd(base + 8 * (m + 1) + 8 * j) as u64;
    (&bytes[from..to], sum)
}

/// Decodes a stored block of `count` slots into `out` (cleared first), checking its checksum
/// and its codes.
pub(crate) fn decode_block(
    stored: &[u8],
    sum: u64,
    count: usize,
    out: &mut Vec<u16>,
    scratch: &mut Vec<u8>,
    dctx: &mut zstd::bulk::Decompressor<'static>,
) -> Result<(), String> {
    if fnv1a64(stored) != sum {
        return Err("distance block checksum mismatch (the file is damaged)".into());
    }
    let raw: &[u8] = if stored.len() == 2 * count {
        stored
    } else {
        scratch.clear();
        scratch.reserve(2 * count);
        let n = dctx
            .decompress_to_buffer(stored, scratch)
            .map_err(|e| format!("distance block does not decompress: {e}"))?;
        if n != 2 * count {
            return Err(format!(
                "distance block holds {n} bytes, expected {}",
                2 * count
            ));
        }
        scratch
    };
    out.clear();
    out.extend((0..count).map(|i| raw[i] as u16 | (raw[count + i] as u16) << 8));
    if let Some(i) = out.iter().position(|&e| Value::from_u16(e).is_none()) {
        return Err(format!(
            "slot {i} of a block holds the invalid code {:#06x}",
            out[i]
        ));
    }
    Ok(())
}

/// The values of every position of one sub-space, in memory: what the solver produces and
/// the generator reads back (the engine probes files through [`super::TableFile`] instead).
#[derive(Clone)]
pub struct Table {
    /// The rules the table was solved under.
    pub rules: Rules,
    /// Pieces of the side to move.
    pub w: u8,
    /// Pieces of the other side.
    pub b: u8,
    index: SubIndex,
    entries: Vec<u16>,
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Table({} {}v{}, {} entries)",
            self.rules,
            self.w,
            self.b,
            self.entries.len()
        )
    }
}

impl Table {
    /// A table from its entries; panics if the count does not fit the sub-space.
    pub fn from_entries(rules: Rules, w: u8, b: u8, entries: Vec<u16>) -> Table {
        let index = SubIndex::new(rules.variant, w, b);
        assert_eq!(entries.len(), index.len(), "entry count of {w}v{b}");
        Table {
            rules,
            w,
            b,
            index,
            entries,
        }
    }

    /// The index of the sub-space.
    pub fn index(&self) -> &SubIndex {
        &self.index
    }

    /// The raw entries, one per slot.
    pub fn entries(&self) -> &[u16] {
        &self.entries
    }

    /// The value of the position with piece sets `us` (to move) and `them`.
    #[inline]
    pub fn get(&self, us: u32, them: u32) -> Value {
        let v = self.entries[self.index.index(us, them) as usize];
        Value::from_u16(v).expect("entries were checked when the table was built or read")
    }

    /// The counts of the header, per position (canonical slot).
    pub fn stats(&self) -> TableStats {
        let idx = self.index;
        let entries = &self.entries;
        let zero = || TableStats::default();
        let count = |s: &mut TableStats, e: u16, canonical: bool| {
            let v = Value::from_u16(e).expect("checked entries");
            match v {
                Value::Win(d) => s.max_win = s.max_win.max(d),
                Value::Loss(d) => s.max_loss = s.max_loss.max(d),
                Value::Draw => {}
            }
            match v {
                Value::Win(d) | Value::Loss(d) if d <= LIMIT => s.real_max = s.real_max.max(d),
                _ => {}
            }
            if !canonical {
                return;
            }
            s.positions += 1;
            match v {
                Value::Win(d) if d <= LIMIT => s.wins += 1,
                Value::Win(_) => s.spoilt_wins += 1,
                Value::Draw => s.draws += 1,
                Value::Loss(d) if d <= LIMIT => s.losses += 1,
                Value::Loss(_) => s.spoilt_losses += 1,
            }
        };
        // One `us` set at a time: only those with a symmetry have slots that are not
        // canonical, so only they are walked set by set.
        let spu = idx.slots_per_us();
        let mut s = entries
            .par_chunks(spu)
            .enumerate()
            .fold(zero, |mut s, (ci, es)| {
                if idx.us_set_is_symmetric(ci) {
                    let mut k = 0;
                    idx.for_each_them(ci, |_, canonical| {
                        count(&mut s, es[k], canonical);
                        k += 1;
                    });
                } else {
                    es.iter().for_each(|&e| count(&mut s, e, true));
                }
                s
            })
            .reduce(zero, |a, b| TableStats {
                slots: 0,
                positions: a.positions + b.positions,
                wins: a.wins + b.wins,
                draws: a.draws + b.draws,
                losses: a.losses + b.losses,
                spoilt_wins: a.spoilt_wins + b.spoilt_wins,
                spoilt_losses: a.spoilt_losses + b.spoilt_losses,
                real_max: a.real_max.max(b.real_max),
                max_win: a.max_win.max(b.max_win),
                max_loss: a.max_loss.max(b.max_loss),
            });
        s.slots = entries.len() as u64;
        s
    }

    /// The file image (see the module documentation for the layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.entries.len();
        let stats = self.stats();
        let wdl: Vec<u8> = self
            .entries
            .par_chunks(5 << 12)
            .flat_map_iter(|chunk| {
                chunk.chunks(5).map(|five| {
                    five.iter().rev().fold(0u8, |acc, &e| {
                        acc * 3 + digit_of(Value::from_u16(e).expect("checked entries"))
                    })
                })
            })
            .collect();
        debug_assert_eq!(wdl.len(), n.div_ceil(5));
        let mut wdl = wdl;
        wdl.extend(maxima(&self.entries, GROUP_SLOTS as usize));
        let k = BLOCK_SLOTS as usize;
        // Each block with its checksum, both made in parallel. One compression context per
        // thread: making one per 16 KB block (`zstd::bulk::compress`) took job 5v6 of nine
        // 2.4 s of encoding where a kept one takes 1.95 s, and it writes the same bytes.
        let blocks: Vec<(Vec<u8>, u64)> = self
            .entries
            .par_chunks(k)
            .map_init(
                || zstd::bulk::Compressor::new(ZSTD_LEVEL).expect("a zstd context"),
                |zc, chunk| {
                    let mut raw = Vec::with_capacity(2 * chunk.len());
                    raw.extend(chunk.iter().map(|&e| e as u8));
                    raw.extend(chunk.iter().map(|&e| (e >> 8) as u8));
                    let stored = match zc.compress(&raw) {
                        Ok(c) if c.len() < raw.len() => c,
                        _ => raw,
                    };
                    let sum = fnv1a64(&stored);
                    (stored, sum)
                },
            )
            .collect();
        let mut h = Header {
            rules: self.rules,
            w: self.w,
            b: self.b,
            stats,
            block_slots: BLOCK_SLOTS,
            wdl_offset: HEADER_LEN as u64,
            index_offset: (HEADER_LEN + wdl.len()).next_multiple_of(8) as u64,
            wdl_sum: fnv1a64(&wdl),
            index_sum: 0,
            group_slots: GROUP_SLOTS,
        };
        let m = blocks.len();
        let mut index = Vec::with_capacity((2 * m + 1) * 8);
        let mut at = h.index_offset + ((2 * m + 1) * 8) as u64;
        for (blk, _) in &blocks {
            index.extend_from_slice(&at.to_le_bytes());
            at += blk.len() as u64;
        }
        index.extend_from_slice(&at.to_le_bytes());
        for (_, sum) in &blocks {
            index.extend_from_slice(&sum.to_le_bytes());
        }
        h.index_sum = fnv1a64(&index);
        let mut out = Vec::with_capacity(at as usize);
        out.extend_from_slice(&h.to_bytes());
        out.extend_from_slice(&wdl);
        out.resize(h.index_offset as usize, 0);
        out.extend_from_slice(&index);
        for (blk, _) in &blocks {
            out.extend_from_slice(blk);
        }
        debug_assert_eq!(out.len() as u64, at);
        out
    }

    /// Writes the table to `path` atomically: to a temporary name first, then renamed, so an
    /// interrupted run never leaves a file that looks complete.
    pub fn write(&self, path: &Path) -> Result<(), TbError> {
        let tmp = path.with_extension("mtb.tmp");
        let io_err = |p: &Path, e| TbError::Io {
            path: p.to_path_buf(),
            source: e,
        };
        let t0 = std::time::Instant::now();
        let bytes = self.to_bytes();
        let t1 = std::time::Instant::now();
        let mut f = fs::File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
        f.write_all(&bytes).map_err(|e| io_err(&tmp, e))?;
        let t2 = std::time::Instant::now();
        f.sync_all().map_err(|e| io_err(&tmp, e))?;
        log::debug!(
            "{}: encoded in {:.2}s, written in {:.2}s, synced in {:.2}s",
            path.display(),
            (t1 - t0).as_secs_f64(),
            (t2 - t1).as_secs_f64(),
            t2.elapsed().as_secs_f64()
        );
        drop(f);
        fs::rename(&tmp, path).map_err(|e| io_err(path, e))
    }

    /// Parses and fully decodes a file image, checking that it is the table of sub-space
    /// (w, b) under `rules`, every checksum, and that the W/D/L part agrees with the distances.
    pub fn from_bytes(
        bytes: &[u8],
        rules: Rules,
        w: u8,
        b: u8,
        path: &Path,
    ) -> Result<Table, TbError> {
        let bad = |reason: String| TbError::Format {
            path: path.to_path_buf(),
            reason,
        };
        let h = Header::parse(bytes, rules, w, b, path)?;
        h.check_parts(bytes, path)?;
        let n = h.stats.slots as usize;
        let k = h.block_slots as usize;
        let wdl = &bytes[h.wdl_offset as usize..];
        // Decoded in place, into memory the generator reads in random order.
        let mut entries: Vec<u16> = super::hugepages::filled(n, 0);
        entries
            .par_chunks_mut(k)
            .enumerate()
            .try_for_each_init(
                || {
                    (
                        zstd::bulk::Decompressor::new().expect("a zstd context"),
                        Vec::new(),
                        Vec::new(),
                    )
                },
                |(dctx, scratch, out), (j, chunk)| {
                    let (stored, sum) = block_bytes(&h, bytes, j);
                    decode_block(stored, sum, chunk.len(), out, scratch, dctx)
                        .map_err(|e| format!("block {j}: {e}"))?;
                    for (i, &e) in out.iter().enumerate() {
                        let s = j * k + i;
                        let v = Value::from_u16(e).expect("checked codes");
                        if DIGITS[wdl[s / 5] as usize][s % 5] != digit_of(v) {
                            return Err(format!(
                                "slot {s}: the W/D/L part disagrees with the distance ({v})"
                            ));
                        }
                    }
                    chunk.copy_from_slice(out);
                    Ok(())
                },
            )
            .map_err(bad)?;
        let g = h.group_slots as usize;
        let stored = &bytes[h.maxima_offset() as usize..(h.wdl_offset + h.wdl_len()) as usize];
        if let Some(j) = maxima(&entries, g)
            .iter()
            .zip(stored)
            .position(|(a, b)| a != b)
        {
            return Err(bad(format!(
                "W/D/L maximum {j} is {}, the distances say otherwise",
                stored[j]
            )));
        }
        Ok(Table::from_entries(rules, w, b, entries))
    }

    /// Reads, checks and decodes the table of sub-space (w, b) from `path`.
    pub fn read(path: &Path, rules: Rules, w: u8, b: u8) -> Result<Table, TbError> {
        let bytes = fs::read(path).map_err(|e| TbError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        Table::from_bytes(&bytes, rules, w, b, path)
    }
}
