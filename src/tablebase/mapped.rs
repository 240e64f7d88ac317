//! Probing a table file through a memory map.
//!
//! The file is mapped, not read: opening checks the header, the W/D/L part and the block index
//! against their checksums (that touches `n / 5` bytes, not the distance blocks), and from then
//! on the operating system pages in what the probes touch. A W/D/L probe is one index
//! computation and two byte loads (the digit and its group's maximum distance); a distance
//! probe decodes one block (8192 slots), checking
//! its checksum, with the last decoded block kept per thread.

use super::format::{
    block_bytes, decode_block, digit_of, Header, TableStats, TbError, DIGITS, DIGIT_LOSS,
    DIGIT_OTHER, DIGIT_WIN,
};
use super::index::SubIndex;
use super::value::{Value, LIMIT};
use super::Wdl;
use crate::types::Rules;
use memmap2::Mmap;
use std::cell::RefCell;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// One sub-space's file, mapped for probing.
pub struct TableFile {
    header: Header,
    index: SubIndex,
    map: Mmap,
    path: PathBuf,
    /// Tells this file's blocks apart in the per-thread cache.
    id: u64,
    /// log2 of the slots per group of the maxima.
    group_shift: u32,
    /// Offset of the maxima.
    maxima: usize,
    /// Whether a damaged block was reported already (reported once per file).
    reported: AtomicBool,
    /// A bit a page of the map: known to be in memory (see [`TableFile::wdl_in_memory`]).
    resident: Vec<AtomicU64>,
}

impl std::fmt::Debug for TableFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TableFile({} {}v{}, {})",
            self.header.rules,
            self.header.w,
            self.header.b,
            self.path.display()
        )
    }
}

struct Cache {
    key: (u64, usize),
    values: Vec<u16>,
    scratch: Vec<u8>,
    dctx: Option<zstd::bulk::Decompressor<'static>>,
}

thread_local! {
    static CACHE: RefCell<Cache> = const { RefCell::new(Cache {
        key: (u64::MAX, 0),
        values: Vec::new(),
        scratch: Vec::new(),
        dctx: None,
    }) };
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl TableFile {
    /// Maps and checks the file of sub-space (w, b) under `rules` at `path`.
    pub fn open(path: &Path, rules: Rules, w: u8, b: u8) -> Result<TableFile, TbError> {
        Self::open_paced(path, rules, w, b, &|| {})
    }

    /// [`TableFile::open`], calling `pace` before each megabyte of the check.
    pub(crate) fn open_paced(
        path: &Path,
        rules: Rules,
        w: u8,
        b: u8,
        pace: &dyn Fn(),
    ) -> Result<TableFile, TbError> {
        Self::open_checking(path, rules, w, b, |h, map| {
            h.check_parts_paced(map, path, pace)
        })
    }

    /// Maps the file and checks its header and block index, not its W/D/L part: for
    /// [`TableFile::get`] alone, whose every answer is checked anyway (the distance block
    /// against its own sum, the value against the W/D/L digit), while the whole check has not
    /// been done yet. [`TableFile::wdl`] reads the W/D/L part unchecked: not for such a file.
    pub(crate) fn open_for_values(
        path: &Path,
        rules: Rules,
        w: u8,
        b: u8,
    ) -> Result<TableFile, TbError> {
        Self::open_checking(path, rules, w, b, |h, map| h.check_index(map, path))
    }

    fn open_checking(
        path: &Path,
        rules: Rules,
        w: u8,
        b: u8,
        check: impl FnOnce(&Header, &[u8]) -> Result<(), TbError>,
    ) -> Result<TableFile, TbError> {
        let io = |e| TbError::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let file = File::open(path).map_err(io)?;
        // SAFETY: the map is read-only and the files are never written in place (the generator
        // writes a temporary file and renames it); a file truncated by someone else while
        // mapped would fault, as with any mapped file.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let header = Header::parse(&map, rules, w, b, path)?;
        check(&header, &map)?;
        // Probes read one distance block at a random place (the W/D/L part, read whole by
        // the check, keeps the default): no read-around for their cold faults.
        let blocks = (header.index_offset + header.index_len()) as usize;
        let _ = map.advise_range(memmap2::Advice::Random, blocks, map.len() - blocks);
        let len = map.len();
        Ok(TableFile {
            header,
            index: SubIndex::new(rules.variant, w, b),
            map,
            path: path.to_path_buf(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            group_shift: header.group_slots.trailing_zeros(),
            maxima: header.maxima_offset() as usize,
            reported: AtomicBool::new(false),
            resident: (0..len.div_ceil(page_size() * 64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The counts stored in the header.
    pub fn stats(&self) -> &TableStats {
        &self.header.stats
    }

    /// The index of the sub-space.
    pub fn index(&self) -> &SubIndex {
        &self.index
    }

    /// The file's size in bytes.
    pub fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    /// Bytes of the distance part (the compressed blocks).
    pub fn distance_len(&self) -> u64 {
        self.map.len() as u64 - self.header.index_offset - self.header.index_len()
    }

    /// Checks every distance block against its checksum (reads the whole file).
    pub fn check_blocks(&self) -> Result<(), TbError> {
        for j in 0..self.header.blocks() as usize {
            let (stored, sum) = block_bytes(&self.header, &self.map, j);
            if super::format::fnv1a64(stored) != sum {
                return Err(self.bad(format!(
                    "distance block {j} checksum mismatch (the file is damaged)"
                )));
            }
        }
        Ok(())
    }

    fn bad(&self, reason: String) -> TbError {
        TbError::Format {
            path: self.path.clone(),
            reason,
        }
    }

    /// The W/D/L digit of a slot ([`super::format::DIGIT_WIN`] and so on).
    #[inline(always)]
    pub fn digit(&self, slot: u32) -> u8 {
        let at = self.header.wdl_offset as usize + (slot / 5) as usize;
        DIGITS[self.map[at] as usize][(slot % 5) as usize]
    }

    /// The stored value of a slot: decodes its distance block (or finds it in this thread's
    /// cache). A damaged block is an error, reported in the log once per file.
    pub fn value_at(&self, slot: u32) -> Result<Value, TbError> {
        let k = self.header.block_slots as usize;
        let j = slot as usize / k;
        let r = CACHE.with(|c| {
            let mut c = c.borrow_mut();
            let c = &mut *c;
            if c.key != (self.id, j) {
                c.key = (u64::MAX, 0);
                let (stored, sum) = block_bytes(&self.header, &self.map, j);
                let count = k.min(self.header.stats.slots as usize - j * k);
                let dctx = match &mut c.dctx {
                    Some(d) => d,
                    none => none
                        .insert(zstd::bulk::Decompressor::new().map_err(|e| format!("zstd: {e}"))?),
                };
                decode_block(stored, sum, count, &mut c.values, &mut c.scratch, dctx)
                    .map_err(|e| format!("block {j}: {e}"))?;
                c.key = (self.id, j);
            }
            Ok::<u16, String>(c.values[slot as usize % k])
        });
        let v = r
            .as_ref()
            .ok()
            .copied()
            .and_then(Value::from_u16)
            .filter(|&v| digit_of(v) == self.digit(slot));
        match v {
            Some(v) => Ok(v),
            None => {
                let e = self.bad(match r {
                    Err(e) => e,
                    Ok(_) => format!("slot {slot}: the W/D/L part disagrees with the distance"),
                });
                if !self.reported.swap(true, Ordering::Relaxed) {
                    log::warn!("endgame table: {e}; probes that need it get no answer");
                }
                Err(e)
            }
        }
    }

    /// Asks the kernel to read ahead, without waiting, what a probe of `slot` will touch: its
    /// W/D/L byte and, with `distance`, its distance block (see [`crate::tablebase`]'s
    /// `prefetch_children`).
    pub fn prefetch(&self, slot: u32, distance: bool) {
        use memmap2::Advice;
        let _ = self
            .map
            .advise_range(Advice::WillNeed, self.wdl_byte(slot), 1);
        if distance {
            let span = self.distance_span(slot);
            let _ = self
                .map
                .advise_range(Advice::WillNeed, span.start, span.len().max(1));
        }
    }

    /// Where in the file the W/D/L byte of `slot` is.
    pub fn wdl_byte(&self, slot: u32) -> usize {
        self.header.wdl_offset as usize + (slot / 5) as usize
    }

    /// Where in the file the distance block that holds `slot` is.
    pub fn distance_span(&self, slot: u32) -> std::ops::Range<usize> {
        let j = slot as usize / self.header.block_slots as usize;
        let (stored, _) = block_bytes(&self.header, &self.map, j);
        let from = stored.as_ptr() as usize - self.map.as_ptr() as usize;
        from..from + stored.len()
    }

    /// The file's bytes, mapped (for measuring reads).
    pub fn mapped(&self) -> &[u8] {
        &self.map
    }

    /// Whether the page holding byte `at` of the file is in memory, so that reading it cannot
    /// wait for the disk. Known pages are remembered (until [`TableFile::forget_residency`]);
    /// an unknown one is asked of the kernel (`mincore`).
    #[inline]
    fn in_memory(&self, at: usize) -> bool {
        let page = at / page_size();
        let bit = 1u64 << (page % 64);
        if self.resident[page / 64].load(Ordering::Relaxed) & bit != 0 {
            return true;
        }
        self.ask_kernel(page, bit)
    }

    /// No read-ahead is asked for a page that is not in memory: `madvise` submits the reads
    /// itself and may wait for the disk's queue (while a check of the files fills it, say),
    /// which is what the search must never do. The root's reads bring in what matters most.
    #[cold]
    fn ask_kernel(&self, page: usize, bit: u64) -> bool {
        let ps = page_size();
        let resident = page_in_memory(&self.map[page * ps..], ps);
        if resident {
            self.resident[page / 64].fetch_or(bit, Ordering::Relaxed);
        }
        resident
    }

    /// Forgets which pages were in memory: the kernel may have dropped some since (the search
    /// calls this before each search, so a page read long ago is asked about again).
    pub fn forget_residency(&self) {
        for w in &self.resident {
            w.store(0, Ordering::Relaxed);
        }
    }

    /// [`TableFile::wdl`] for the search: `None` (a miss, as outside the tables) instead of
    /// waiting for the disk when a byte it needs is not in memory.
    #[inline]
    pub fn wdl_in_memory(&self, us: u32, them: u32, rule50: u16) -> Option<Wdl> {
        let slot = self.index.index(us, them);
        let at = self.header.wdl_offset as usize + (slot / 5) as usize;
        if !self.in_memory(at) {
            return None;
        }
        if self.digit(slot) == DIGIT_OTHER {
            return Some(Wdl::Draw);
        }
        let group = self.maxima + (slot >> self.group_shift) as usize;
        if !self.in_memory(group) {
            return None;
        }
        if rule50 as u32 + self.map[group] as u32 > LIMIT as u32 {
            // The distance decides: its whole block must be in memory.
            let span = self.distance_span(slot);
            let ps = page_size();
            let last = span.start + span.len().max(1) - 1;
            if !(span.start / ps..=last / ps).all(|p| self.in_memory(p * ps)) {
                return None;
            }
        }
        self.wdl(us, them, rule50)
    }

    /// The stored value of the position with piece sets `us` (to move) and `them`.
    pub fn get(&self, us: u32, them: u32) -> Result<Value, TbError> {
        self.value_at(self.index.index(us, them))
    }

    /// The result under the rules (win, draw or loss; cursed wins and blessed losses are
    /// draws) with the 100-ply counter at `rule50`. Reads only the W/D/L part, unless the
    /// counter is so far on that a win or loss of this table might come too late; then the
    /// distance decides. `None` if that block is damaged.
    #[inline]
    pub fn wdl(&self, us: u32, them: u32, rule50: u16) -> Option<Wdl> {
        let slot = self.index.index(us, them);
        let d = self.digit(slot);
        let decisive = match d {
            DIGIT_WIN => Wdl::Win,
            DIGIT_LOSS => Wdl::Loss,
            _ => return Some(Wdl::Draw),
        };
        let at = self.maxima + (slot >> self.group_shift) as usize;
        if rule50 as u32 + self.map[at] as u32 <= LIMIT as u32 {
            return Some(decisive);
        }
        let v = self.value_at(slot).ok()?;
        Some(super::Probe::from_value(v, rule50).wdl.real())
    }
}

/// The size of a memory page.
fn page_size() -> usize {
    static SIZE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *SIZE.get_or_init(|| {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: sysconf has no preconditions.
            let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if n > 0 {
                return n as usize;
            }
        }
        4096
    })
}

/// Whether the page at the start of `bytes` (page-aligned, inside a map) is in memory.
#[cfg(target_os = "linux")]
fn page_in_memory(bytes: &[u8], page: usize) -> bool {
    let mut v = 0u8;
    // SAFETY: `bytes` starts on a page boundary of a live map and spans at least one byte of
    // the page; mincore writes one byte for one page.
    let r = unsafe {
        libc::mincore(
            bytes.as_ptr() as *mut libc::c_void,
            page.min(bytes.len()),
            &mut v,
        )
    };
    // If the kernel cannot tell, reading it is the only way to know.
    r != 0 || v & 1 != 0
}

/// Elsewhere there is no cheap way to ask: every page counts as in memory.
#[cfg(not(target_os = "linux"))]
fn page_in_memory(_bytes: &[u8], _page: usize) -> bool {
    true
}
