//! The placing-phase table file (`.mpt`, version 1): W/D/L only, in zstd blocks, mapped.
//!
//! The placing phase needs no distance (the 100-ply counter starts with the moving phase), so a
//! slot is one base-3 digit, as in the moving phase's W/D/L part ([`DIGIT_WIN`], [`DIGIT_LOSS`],
//! [`DIGIT_OTHER`] for a draw), five a byte. Unlike the moving phase's, the digits are compressed
//! in blocks: placing sectors hold 18 G positions of nine, and their values are lopsided (a side
//! several pieces down has lost nearly everywhere), which zstd turns into far fewer bytes.
//! A probe decodes one block, checking its checksum; the last block is kept per thread.
//!
//! | offset | size | field                                                             |
//! |--------|------|-------------------------------------------------------------------|
//! | 0      | 8    | magic `MILLPT\r\n`                                                |
//! | 8      | 2    | format version ([`VERSION`], 1)                                   |
//! | 10     | 1    | variant: 9 or 12                                                  |
//! | 11     | 1    | flying: 0 or 1                                                    |
//! | 12     | 1    | ply: placements made                                              |
//! | 13     | 1    | m, pieces of the side to move on the board                        |
//! | 14     | 1    | o, pieces of the other side on the board                          |
//! | 15     | 1    | reserved, 0                                                       |
//! | 16     | 8    | n, slot count (the sector's [`SubIndex::len`](crate::tablebase::SubIndex::len)) |
//! | 24     | 8    | positions: canonical slots                                        |
//! | 32     | 8    | wins                                                              |
//! | 40     | 8    | draws                                                             |
//! | 48     | 8    | losses                                                            |
//! | 56     | 4    | k, slots per block                                                |
//! | 60     | 4    | reserved, 0                                                       |
//! | 64     | 8    | file length                                                       |
//! | 72     | 8    | FNV-1a 64 of the block index                                      |
//! | 80     | 40   | reserved, 0                                                       |
//! | 120    | 8    | FNV-1a 64 of header bytes 0..120                                  |
//!
//! Then the block index at offset 128: with `b = ceil(n / k)` blocks, `b + 1` u64 offsets
//! (block `j` spans `offset[j] .. offset[j + 1]`; `offset[b]` is the file length) and `b` u64
//! FNV-1a 64 checksums of the stored blocks. Then the blocks: block `j` holds the digits of
//! slots `j k .. min((j + 1) k, n)`, five a byte, as one zstd frame, or raw when zstd would not
//! shrink them (its stored length is then exactly the raw length). All numbers little-endian.

use crate::tablebase::format::{fnv1a64, TbError, DIGITS, DIGIT_LOSS, DIGIT_OTHER, DIGIT_WIN};
use crate::tablebase::placing::Sector;
use crate::types::{Rules, Variant};
use memmap2::Mmap;
use std::cell::RefCell;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// File magic.
pub const MAGIC: [u8; 8] = *b"MILLPT\r\n";
/// File format version.
pub const VERSION: u16 = 1;
/// Header size in bytes.
pub const HEADER_LEN: usize = 128;
/// Slots per block in the files we write: 3,277 bytes of digits, decoded in a few
/// microseconds, which the root's probes and `mill-tb probe` do not notice.
pub const BLOCK_SLOTS: u32 = 16384;
/// zstd level of the blocks.
pub const ZSTD_LEVEL: i32 = 3;

/// W/D/L counts of a sector's distinct positions (canonical slots).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlacingStats {
    /// Slots.
    pub slots: u64,
    /// Distinct positions up to symmetry.
    pub positions: u64,
    /// Won for the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost.
    pub losses: u64,
}

/// A parsed and checked header.
#[derive(Clone, Copy, Debug)]
pub struct PlacingHeader {
    /// The sector.
    pub sector: Sector,
    /// The counts.
    pub stats: PlacingStats,
    /// Slots per block.
    pub block_slots: u32,
    /// The file's length.
    pub file_len: u64,
    /// Checksum of the block index.
    pub index_sum: u64,
}

impl PlacingHeader {
    /// Number of blocks.
    pub fn blocks(&self) -> u64 {
        self.stats.slots.div_ceil(self.block_slots as u64)
    }

    /// Bytes of the block index.
    pub fn index_len(&self) -> u64 {
        (2 * self.blocks() + 1) * 8
    }

    fn to_bytes(self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        let s = &self.sector;
        h[0..8].copy_from_slice(&MAGIC);
        h[8..10].copy_from_slice(&VERSION.to_le_bytes());
        h[10] = s.rules.variant.pieces();
        h[11] = s.rules.flying as u8;
        h[12] = s.ply;
        h[13] = s.m;
        h[14] = s.o;
        let st = &self.stats;
        for (i, x) in [st.slots, st.positions, st.wins, st.draws, st.losses]
            .iter()
            .enumerate()
        {
            h[16 + 8 * i..24 + 8 * i].copy_from_slice(&x.to_le_bytes());
        }
        h[56..60].copy_from_slice(&self.block_slots.to_le_bytes());
        h[64..72].copy_from_slice(&self.file_len.to_le_bytes());
        h[72..80].copy_from_slice(&self.index_sum.to_le_bytes());
        let sum = fnv1a64(&h[0..120]);
        h[120..128].copy_from_slice(&sum.to_le_bytes());
        h
    }

    /// Parses and checks the header and block index of a file image that should hold `sector`
    /// (the blocks themselves are checked when decoded).
    pub fn parse(bytes: &[u8], sector: Sector, path: &Path) -> Result<PlacingHeader, TbError> {
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
            return Err(bad("wrong magic (not a placing-phase table)".into()));
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != VERSION {
            return Err(bad(format!(
                "format version {version}, expected {VERSION} (regenerate with mill-tb)"
            )));
        }
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8"));
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
        let found = Sector::new(Rules::new(variant, flying), bytes[12], bytes[13], bytes[14]);
        if found != Some(sector) {
            return Err(bad(format!(
                "holds {} ply {} {}v{}, expected {sector}",
                Rules::new(variant, flying),
                bytes[12],
                bytes[13],
                bytes[14]
            )));
        }
        let stats = PlacingStats {
            slots: u64_at(16),
            positions: u64_at(24),
            wins: u64_at(32),
            draws: u64_at(40),
            losses: u64_at(48),
        };
        if stats.slots != sector.slots() {
            return Err(bad(format!(
                "slot count {}, the sector has {}",
                stats.slots,
                sector.slots()
            )));
        }
        let h = PlacingHeader {
            sector,
            stats,
            block_slots: u32::from_le_bytes(bytes[56..60].try_into().expect("4")),
            file_len: u64_at(64),
            index_sum: u64_at(72),
        };
        if h.block_slots == 0 || h.block_slots > 1 << 24 {
            return Err(bad(format!("block size {} slots", h.block_slots)));
        }
        if h.file_len != bytes.len() as u64 {
            return Err(bad(format!(
                "{} bytes, the header says {} (truncated or grown)",
                bytes.len(),
                h.file_len
            )));
        }
        let index_end = HEADER_LEN as u64 + h.index_len();
        if index_end > h.file_len {
            return Err(bad("the block index runs past the end (truncated)".into()));
        }
        let index = &bytes[HEADER_LEN..index_end as usize];
        if fnv1a64(index) != h.index_sum {
            return Err(bad(
                "block index checksum mismatch (the file is damaged)".into()
            ));
        }
        let offsets = |j: usize| u64::from_le_bytes(index[8 * j..8 * j + 8].try_into().expect("8"));
        let b = h.blocks() as usize;
        if offsets(0) != index_end || offsets(b) != h.file_len {
            return Err(bad("block offsets do not span the file".into()));
        }
        for j in 0..b {
            let (lo, hi) = (offsets(j), offsets(j + 1));
            // A block zstd would not shrink is stored raw: none is longer.
            if hi < lo || hi - lo > h.raw_len(j) as u64 {
                return Err(bad(format!("block {j} has a bad length")));
            }
        }
        Ok(h)
    }

    /// Slots of block `j`.
    pub fn block_count(&self, j: usize) -> usize {
        let k = self.block_slots as usize;
        k.min(self.stats.slots as usize - j * k)
    }

    /// Bytes of block `j`'s digits before compression.
    pub fn raw_len(&self, j: usize) -> usize {
        self.block_count(j).div_ceil(5)
    }
}

/// Packs digits five a byte.
fn pack(digits: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend(digits.chunks(5).map(|c| {
        c.iter()
            .rev()
            .fold(0u8, |acc, &d| acc * 3 + d.min(DIGIT_LOSS))
    }));
}

/// Counts the W/D/L of a sector's canonical slots; `values` are digits, one a slot.
pub fn stats_of(sector: Sector, values: &[u8]) -> PlacingStats {
    use rayon::prelude::*;
    let idx = sector.index();
    let per = idx.slots_per_us();
    let s = (0..idx.us_count())
        .into_par_iter()
        .map(|ci| {
            let mut c = [0u64; 3];
            let row = &values[ci * per..(ci + 1) * per];
            if idx.us_set_is_symmetric(ci) {
                let mut i = 0;
                idx.for_each_them(ci, |_, canonical| {
                    if canonical {
                        c[row[i] as usize] += 1;
                    }
                    i += 1;
                });
            } else {
                for &d in row {
                    c[d as usize] += 1;
                }
            }
            c
        })
        .reduce(|| [0; 3], |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2]]);
    PlacingStats {
        slots: values.len() as u64,
        positions: s.iter().sum(),
        wins: s[DIGIT_WIN as usize],
        draws: s[DIGIT_OTHER as usize],
        losses: s[DIGIT_LOSS as usize],
    }
}

/// The file image of a solved sector: `values` holds one digit a slot.
pub fn to_bytes(sector: Sector, values: &[u8], stats: PlacingStats) -> Vec<u8> {
    use rayon::prelude::*;
    assert_eq!(values.len() as u64, sector.slots());
    let k = BLOCK_SLOTS as usize;
    let blocks: Vec<Vec<u8>> = values
        .par_chunks(k)
        .map_init(
            || (zstd::bulk::Compressor::new(ZSTD_LEVEL).ok(), Vec::new()),
            |(cctx, raw), chunk| {
                pack(chunk, raw);
                let z = cctx.as_mut().and_then(|c| c.compress(raw).ok());
                match z {
                    Some(z) if z.len() < raw.len() => z,
                    _ => raw.clone(),
                }
            },
        )
        .collect();
    let b = blocks.len();
    let index_len = (2 * b + 1) * 8;
    let mut offsets = Vec::with_capacity(b + 1);
    let mut at = (HEADER_LEN + index_len) as u64;
    for blk in &blocks {
        offsets.push(at);
        at += blk.len() as u64;
    }
    offsets.push(at);
    let mut index = Vec::with_capacity(index_len);
    offsets
        .iter()
        .for_each(|o| index.extend_from_slice(&o.to_le_bytes()));
    blocks
        .iter()
        .for_each(|blk| index.extend_from_slice(&fnv1a64(blk).to_le_bytes()));
    let header = PlacingHeader {
        sector,
        stats,
        block_slots: BLOCK_SLOTS,
        file_len: at,
        index_sum: fnv1a64(&index),
    };
    let mut out = Vec::with_capacity(at as usize);
    out.extend_from_slice(&header.to_bytes());
    out.extend_from_slice(&index);
    blocks.iter().for_each(|blk| out.extend_from_slice(blk));
    out
}

/// Writes a file image so that a killed run leaves nothing that looks finished: a temporary
/// file, synced, then renamed.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), TbError> {
    let io = |e| TbError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let tmp = path.with_extension("mpt.tmp");
    let mut f = File::create(&tmp).map_err(io)?;
    f.write_all(bytes).map_err(io)?;
    f.sync_all().map_err(io)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(io)
}

/// Blocks each thread keeps decoded (as raw bytes, about 3.3 KB each).
const CACHE_BLOCKS: usize = 256;

struct Cache {
    keys: Vec<(u64, usize)>,
    raws: Vec<Vec<u8>>,
    dctx: Option<zstd::bulk::Decompressor<'static>>,
}

thread_local! {
    static CACHE: RefCell<Cache> = const { RefCell::new(Cache {
        keys: Vec::new(),
        raws: Vec::new(),
        dctx: None,
    }) };
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// One sector's file, mapped for probing.
pub struct PlacingFile {
    header: PlacingHeader,
    index: crate::tablebase::SubIndex,
    map: Mmap,
    path: PathBuf,
    id: u64,
    reported: AtomicBool,
}

impl std::fmt::Debug for PlacingFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PlacingFile({}, {})",
            self.header.sector,
            self.path.display()
        )
    }
}

impl PlacingFile {
    /// Maps the file of `sector` at `path` and checks its header and block index.
    pub fn open(path: &Path, sector: Sector) -> Result<PlacingFile, TbError> {
        let io = |e| TbError::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let file = File::open(path).map_err(io)?;
        // SAFETY: read-only map of a file the generator never writes in place (it writes a
        // temporary file and renames it); a file truncated under us would fault, as any map.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let header = PlacingHeader::parse(&map, sector, path)?;
        // A probe reads one block at a random place: without read-around a cold fault reads
        // just its pages (p99 of a cold root's reads 15 ms with it, docs/clock.md).
        let blocks = (HEADER_LEN as u64 + header.index_len()) as usize;
        let _ = map.advise_range(memmap2::Advice::Random, blocks, map.len() - blocks);
        Ok(PlacingFile {
            header,
            index: sector.index(),
            map,
            path: path.to_path_buf(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            reported: AtomicBool::new(false),
        })
    }

    /// The header.
    pub fn header(&self) -> &PlacingHeader {
        &self.header
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored bytes of block `j` and their checksum.
    fn block(&self, j: usize) -> (&[u8], u64) {
        let at = |i: usize| {
            let o = HEADER_LEN + 8 * i;
            u64::from_le_bytes(self.map[o..o + 8].try_into().expect("8")) as usize
        };
        let b = self.header.blocks() as usize;
        (&self.map[at(j)..at(j + 1)], at(b + 1 + j) as u64)
    }

    /// Checks block `j` and puts its raw bytes (five digits a byte, base 3) into `out`.
    fn decode_raw(
        &self,
        j: usize,
        out: &mut Vec<u8>,
        dctx: &mut Option<zstd::bulk::Decompressor<'static>>,
    ) -> Result<(), TbError> {
        let bad = |reason: String| TbError::Format {
            path: self.path.clone(),
            reason,
        };
        let (stored, sum) = self.block(j);
        if fnv1a64(stored) != sum {
            return Err(bad(format!(
                "block {j} checksum mismatch (the file is damaged)"
            )));
        }
        let raw_len = self.header.raw_len(j);
        out.clear();
        if stored.len() == raw_len {
            out.extend_from_slice(stored);
        } else {
            let d = match dctx {
                Some(d) => d,
                none => none.insert(
                    zstd::bulk::Decompressor::new().map_err(|e| bad(format!("zstd: {e}")))?,
                ),
            };
            out.reserve(raw_len);
            d.decompress_to_buffer(stored, out)
                .map_err(|e| bad(format!("block {j}: {e}")))?;
            if out.len() != raw_len {
                return Err(bad(format!("block {j} decodes to a wrong length")));
            }
        }
        if let Some(&byte) = out.iter().find(|&&b| b > 242) {
            return Err(bad(format!("block {j} holds byte {byte}")));
        }
        Ok(())
    }

    /// Decodes block `j` into its digits, one a slot.
    pub fn decode_block(
        &self,
        j: usize,
        out: &mut Vec<u8>,
        dctx: &mut Option<zstd::bulk::Decompressor<'static>>,
    ) -> Result<(), TbError> {
        let mut raw = Vec::new();
        self.decode_raw(j, &mut raw, dctx)?;
        out.clear();
        out.reserve(raw.len() * 5);
        for &byte in &raw {
            out.extend_from_slice(&DIGITS[byte as usize]);
        }
        out.truncate(self.header.block_count(j));
        Ok(())
    }

    /// The digit of a slot (decoding its block, or from this thread's cache of recent blocks);
    /// a damaged block is an error, logged once per file.
    pub fn digit_at(&self, slot: u32) -> Result<u8, TbError> {
        let k = self.header.block_slots as usize;
        let j = slot as usize / k;
        let r = slot as usize % k;
        let key = (self.id, j);
        // Direct-mapped by file and block: the sectors of the first plies and the blocks a
        // search or a sampler keeps returning to stay decoded.
        let e = ((self.id.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ j as u64)
            .wrapping_mul(0xff51_afd7_ed55_8ccd)
            >> 56) as usize
            % CACHE_BLOCKS;
        let d = CACHE.with(|c| {
            let mut c = c.borrow_mut();
            let c = &mut *c;
            if c.keys.is_empty() {
                c.keys = vec![(u64::MAX, 0); CACHE_BLOCKS];
                c.raws = vec![Vec::new(); CACHE_BLOCKS];
            }
            if c.keys[e] != key {
                c.keys[e] = (u64::MAX, 0);
                self.decode_raw(j, &mut c.raws[e], &mut c.dctx)?;
                c.keys[e] = key;
            }
            Ok(DIGITS[c.raws[e][r / 5] as usize][r % 5])
        });
        if let Err(e) = &d {
            if !self.reported.swap(true, Ordering::Relaxed) {
                log::warn!("placing table: {e}; probes that need it get no answer");
            }
        }
        d
    }

    /// Asks the kernel to read the whole file ahead, without waiting.
    pub fn read_ahead(&self) {
        let _ = self.map.advise(memmap2::Advice::WillNeed);
    }

    /// Reads the whole file into memory and keeps it there (`mlock`) for as long as it is
    /// open; an error where the process may not lock that much (`RLIMIT_MEMLOCK`).
    pub fn lock_in_memory(&self) -> std::io::Result<()> {
        self.map.lock()
    }

    /// Asks the kernel to read ahead, without waiting, the block that holds `slot`.
    pub fn prefetch(&self, slot: u32) {
        let span = self.block_span(slot);
        let _ = self
            .map
            .advise_range(memmap2::Advice::WillNeed, span.start, span.len().max(1));
    }

    /// Where in the file the stored block that holds `slot` is (what a probe reads).
    pub fn block_span(&self, slot: u32) -> std::ops::Range<usize> {
        let j = slot as usize / self.header.block_slots as usize;
        let (stored, _) = self.block(j);
        let from = stored.as_ptr() as usize - self.map.as_ptr() as usize;
        from..from + stored.len()
    }

    /// The file's bytes, mapped (for measuring reads).
    pub fn mapped(&self) -> &[u8] {
        &self.map
    }

    /// The slot of the position with piece sets `us` (to move) and `them`.
    pub fn slot(&self, us: u32, them: u32) -> u32 {
        self.index.index(us, them)
    }

    /// The digit of the position with piece sets `us` (to move) and `them`.
    pub fn get(&self, us: u32, them: u32) -> Result<u8, TbError> {
        self.digit_at(self.index.index(us, them))
    }

    /// Every slot's digit (for the generator's inputs and `verify`).
    pub fn read_all(&self) -> Result<Vec<u8>, TbError> {
        use rayon::prelude::*;
        let b = self.header.blocks() as usize;
        let k = self.header.block_slots as usize;
        let mut out = crate::tablebase::hugepages::filled(self.header.stats.slots as usize, 0u8);
        out.par_chunks_mut(k)
            .enumerate()
            .try_for_each_init(
                || (None, Vec::new()),
                |(dctx, buf), (j, dst)| {
                    debug_assert!(j < b);
                    self.decode_block(j, buf, dctx)?;
                    dst.copy_from_slice(buf);
                    Ok(())
                },
            )
            .map(|()| out)
    }
}
