//! The LRU stack as Olken (1981) keeps it: every page's last access time in a map, and a 1 at each page's last
//! access time, so a page's stack distance (distinct other pages touched since its last access) is the count of
//! 1s after that time. The 1s are a bitmap over times, counted per 64-time word by a Fenwick tree over the words:
//! O(log(n/64)) per access, and the tree 64x smaller than one over the times (1,024 words at the least: in L1,
//! where a tree over 65,536 times took 41 % of the pass in its cache misses, bench/RESULTS.md). A short gap
//! (the latest 4-5 words) is counted by popcounts of the words, and touches no tree node.
//! Times are renumbered (compacted) whenever they run out, so memory is O(distinct pages), not O(accesses).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// splitmix64's finaliser: pages with a common stride (every 8th, every 2^k-th) still spread over the table.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Default, Clone, Copy)]
pub struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(self.0 ^ b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = mix(x);
    }
}

pub type PageMap<V> = HashMap<u64, V, BuildHasherDefault<PageHasher>>;

const MIN_CAP: usize = 1 << 16; // times
const SHORT_WORDS: usize = 4; // the latest words, beside the one being filled: counted by popcounts, not the tree

pub struct Stack {
    last: PageMap<u64>, // page -> time of its last access
    bits: Vec<u64>,     // bit t: a page's last access is at time t (times 0..64 * bits.len())
    tree: Vec<u32>,     // Fenwick tree over the popcounts of the words below tree_words() (1-based inside)
    next: u64,          // the next access's time
}

impl Default for Stack {
    fn default() -> Self {
        Stack { last: PageMap::default(), bits: vec![0; MIN_CAP / 64], tree: vec![0; MIN_CAP / 64 + 1], next: 0 }
    }
}

impl Stack {
    pub fn len(&self) -> usize {
        self.last.len()
    }

    pub fn contains(&self, page: u64) -> bool {
        self.last.contains_key(&page)
    }

    /// The words the tree counts: all but the latest SHORT_WORDS full ones and the one being filled, so an
    /// access whose last was among those (a short reuse gap) touches no tree node; a word joins once per 64.
    fn tree_words(&self) -> usize {
        ((self.next / 64) as usize).saturating_sub(SHORT_WORDS)
    }

    fn tree_add(&mut self, w: usize, v: u32) {
        let mut i = w + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add(v);
            i += i & i.wrapping_neg();
        }
    }

    /// Clear time t's bit (and its word's count in the tree, if the tree counts it).
    fn clear(&mut self, t: u64) {
        let w = (t / 64) as usize;
        self.bits[w] ^= 1 << (t % 64);
        if w < self.tree_words() {
            self.tree_add(w, u32::MAX); // -1
        }
    }

    /// Pages whose last access is at a time > t: popcounts of the words from t's if the tree does not count it,
    /// else all pages but those of the words up to t's (the tree) and those at or before t in its word.
    fn after(&self, t: u64) -> u64 {
        let w = (t / 64) as usize;
        let mine = (self.bits[w] >> (t % 64) >> 1).count_ones() as u64; // times t+1.. of t's word
        if w >= self.tree_words() {
            let top = (self.next.saturating_sub(1) / 64) as usize; // the latest time's word
            return mine + self.bits[w + 1..=top].iter().map(|x| x.count_ones() as u64).sum::<u64>();
        }
        let (mut i, mut upto) = (w + 1, 0u64); // pages of the words 0..=w
        while i > 0 {
            upto += self.tree[i] as u64;
            i &= i - 1;
        }
        self.last.len() as u64 - upto + mine
    }

    /// Renumber the last-access times 0..len in their order and rebuild the bitmap and tree with room to double.
    fn compact(&mut self) {
        let mut by_time: Vec<(u64, u64)> = self.last.iter().map(|(&p, &t)| (t, p)).collect();
        by_time.sort_unstable();
        for (k, &(_, p)) in by_time.iter().enumerate() {
            *self.last.get_mut(&p).expect("a live page") = k as u64;
        }
        let live = by_time.len();
        let words = (2 * live).max(MIN_CAP).div_ceil(64);
        self.next = live as u64;
        let counted = self.tree_words();
        self.bits = vec![0; words];
        self.tree = vec![0; words + 1];
        for w in 0..words {
            let ones = live.saturating_sub(64 * w).min(64);
            self.bits[w] = if ones == 64 { u64::MAX } else { (1u64 << ones) - 1 };
            self.tree[w + 1] += if w < counted { ones as u32 } else { 0 };
            let j = w + 1 + ((w + 1) & (w + 1).wrapping_neg());
            if j <= words {
                self.tree[j] += self.tree[w + 1];
            }
        }
    }

    /// Access `page`: its stack distance, or None on its first access (a cold miss).
    pub fn access(&mut self, page: u64) -> Option<u64> {
        if self.next as usize >= 64 * self.bits.len() {
            self.compact();
        }
        let now = self.next;
        let d = self.last.insert(page, now).map(|t| {
            let d = self.after(t);
            self.clear(t);
            d
        });
        self.bits[(now / 64) as usize] |= 1 << (now % 64);
        let before = self.tree_words();
        self.next += 1;
        if self.tree_words() > before {
            self.tree_add(before, self.bits[before].count_ones()); // the word that left the latest ones
        }
        d
    }

    /// Drop `page` from the stack (a sampler lowered its threshold past it).
    pub fn remove(&mut self, page: u64) {
        if let Some(t) = self.last.remove(&page) {
            self.clear(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stack distances by definition: distinct pages since the page's last access.
    fn naive(seq: &[u64]) -> Vec<Option<u64>> {
        seq.iter()
            .enumerate()
            .map(|(i, p)| {
                let j = seq[..i].iter().rposition(|q| q == p)?;
                let mut seen: Vec<u64> = seq[j + 1..i].to_vec();
                seen.sort_unstable();
                seen.dedup();
                Some(seen.len() as u64)
            })
            .collect()
    }

    #[test]
    fn distances_by_hand() {
        let mut s = Stack::default();
        let got: Vec<_> = [1, 2, 3, 1, 1, 3, 2].iter().map(|&p| s.access(p)).collect();
        assert_eq!(got, vec![None, None, None, Some(2), Some(0), Some(1), Some(2)]);
    }

    #[test]
    fn equal_to_the_definition_across_compactions() {
        // 300k accesses over 5000 pages: the tree is compacted several times (MIN_CAP = 65536)
        let seq: Vec<u64> = (0..300_000u64).map(|i| mix(i) % 5000 * 8).collect();
        let mut s = Stack::default();
        let got: Vec<_> = seq.iter().map(|&p| s.access(p)).collect();
        let want = naive(&seq[..3000]);
        assert_eq!(&got[..3000], &want[..]);
        // later accesses: check a sample against the definition on the tail
        for i in (200_000..300_000).step_by(997) {
            let j = seq[..i].iter().rposition(|q| *q == seq[i]).unwrap();
            let mut seen = seq[j + 1..i].to_vec();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(got[i], Some(seen.len() as u64), "access {i}");
        }
    }

    #[test]
    fn equal_to_an_lru_list_with_many_pages_and_removals() {
        // 50k pages: the bitmap grows past MIN_CAP (distances over many words, by the tree), then accesses
        // mixing short and long gaps and removals, against a move-to-front list (position = stack distance)
        let mut s = Stack::default();
        let mut lru: Vec<u64> = Vec::new(); // most recent first
        for i in 0..150_000u64 {
            let p = if i < 50_000 { i } else if i % 3 == 0 { mix(i) % 64 } else { mix(i) % 60_000 };
            if i % 1000 == 999 {
                s.remove(p);
                lru.retain(|&q| q != p);
                continue;
            }
            let want = lru.iter().position(|&q| q == p).map(|k| {
                lru.remove(k);
                k as u64
            });
            lru.insert(0, p);
            assert_eq!(s.access(p), want, "access {i}");
        }
    }

    #[test]
    fn removed_pages_do_not_count() {
        let mut s = Stack::default();
        for p in [1, 2, 3] {
            s.access(p);
        }
        s.remove(2);
        assert_eq!(s.access(1), Some(1));
        assert_eq!(s.access(2), None);
        assert_eq!(s.len(), 3);
    }
}
