;; Exact inner-product scan for the dense leg (FlatVectorIndex).
;;
;; Memory is defined and exported here rather than imported: every index instantiates this module
;; with an empty import object and owns the whole memory, so the instance can be created
;; synchronously from a precompiled module (what Cloudflare workerd requires) and growing one
;; index's memory never invalidates another's views. The JS side lays the memory out as
;; [query | vectors | scores] and grows it with `memory.grow`. `scripts/build-kernel.mjs` also
;; assembles this text with that line replaced by an imported shared memory (kernel-threads.wasm),
;; which Node instances share with a second thread that runs part of the int8 pass.
;;
;; `dot_i8` is the first pass of the int8 scan: vectors quantized to i8, the query to i16, both
;; padded with zeros to a multiple of 16 components, so the loop needs no scalar tail. Products
;; are summed exactly in i32 (the JS side bounds the query's codes so no sum can overflow), and the
;; few vectors whose bound could reach the top k are then re-scored exactly with `dot_at`.
;;
;; All pointers are byte offsets. Loads are unaligned-safe (wasm allows any alignment), so `dim`
;; need not be a multiple of 4: a scalar loop handles the last `dim % 4` components.
(module
  (memory (export "memory") 1)

  ;; sum_j q[j] * v[j] over one vector, as f32: `dot` and `dot_at` both score through it, so a
  ;; vector re-scored alone gets exactly the bits the full scan gives it.
  (func $row (param $q i32) (param $v i32) (param $dim i32) (result f32)
    (local $row i32)      ;; bytes per vector
    (local $end16 i32)    ;; byte offset where the 16-wide blocks of a row end
    (local $end4 i32)     ;; byte offset where the 4-wide blocks end
    (local $j i32)
    (local $qj i32)
    (local $vj i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $s f32)

    (local.set $row (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $end16 (i32.shl (i32.and (local.get $dim) (i32.const -16)) (i32.const 2)))
    (local.set $end4 (i32.shl (i32.and (local.get $dim) (i32.const -4)) (i32.const 2)))
    ;; Four independent accumulators hide the latency of the dependent adds.
    (local.set $a0 (v128.const i32x4 0 0 0 0))
    (local.set $a1 (v128.const i32x4 0 0 0 0))
    (local.set $a2 (v128.const i32x4 0 0 0 0))
    (local.set $a3 (v128.const i32x4 0 0 0 0))
    (local.set $j (i32.const 0))

    (block $b16
      (loop $l16
        (br_if $b16 (i32.ge_u (local.get $j) (local.get $end16)))
        (local.set $qj (i32.add (local.get $q) (local.get $j)))
        (local.set $vj (i32.add (local.get $v) (local.get $j)))
        (local.set $a0 (f32x4.add (local.get $a0)
          (f32x4.mul (v128.load (local.get $qj)) (v128.load (local.get $vj)))))
        (local.set $a1 (f32x4.add (local.get $a1)
          (f32x4.mul (v128.load offset=16 (local.get $qj)) (v128.load offset=16 (local.get $vj)))))
        (local.set $a2 (f32x4.add (local.get $a2)
          (f32x4.mul (v128.load offset=32 (local.get $qj)) (v128.load offset=32 (local.get $vj)))))
        (local.set $a3 (f32x4.add (local.get $a3)
          (f32x4.mul (v128.load offset=48 (local.get $qj)) (v128.load offset=48 (local.get $vj)))))
        (local.set $j (i32.add (local.get $j) (i32.const 64)))
        (br $l16)))

    (block $b4
      (loop $l4
        (br_if $b4 (i32.ge_u (local.get $j) (local.get $end4)))
        (local.set $a0 (f32x4.add (local.get $a0)
          (f32x4.mul
            (v128.load (i32.add (local.get $q) (local.get $j)))
            (v128.load (i32.add (local.get $v) (local.get $j))))))
        (local.set $j (i32.add (local.get $j) (i32.const 16)))
        (br $l4)))

    (local.set $s (call $sum4f (f32x4.add
      (f32x4.add (local.get $a0) (local.get $a1))
      (f32x4.add (local.get $a2) (local.get $a3)))))

    (block $b1
      (loop $l1
        (br_if $b1 (i32.ge_u (local.get $j) (local.get $row)))
        (local.set $s (f32.add (local.get $s)
          (f32.mul
            (f32.load (i32.add (local.get $q) (local.get $j)))
            (f32.load (i32.add (local.get $v) (local.get $j))))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l1)))
    (local.get $s)
  )

  ;; out[i] = sum_j q[j] * v[i * dim + j]  for i in [0, n), as f32.
  (func (export "dot")
    (param $q i32) (param $v i32) (param $n i32) (param $dim i32) (param $out i32)
    (local $row i32)
    (local $outEnd i32)
    (local.set $row (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $outEnd (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
      (loop $rows
        (f32.store (local.get $out) (call $row (local.get $q) (local.get $v) (local.get $dim)))
        (local.set $v (i32.add (local.get $v) (local.get $row)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br_if $rows (i32.lt_u (local.get $out) (local.get $outEnd)))))
  )

  ;; What $row gives two vectors of `row` bytes (a positive multiple of 64, so $row's 16-wide loop
  ;; is all of it), stored at `out` and `out + 4`: the same adds in the same order per vector, so
  ;; the same bits. Their loads go out side by side: the vectors the int8 pass leaves to re-score are
  ;; scattered, each a fresh run of cache misses, and one at a time they waited on memory in turn
  ;; (124 vectors of 384-d at 10k: ~47 µs, ~0.38 µs each).
  (func $row2 (param $q i32) (param $v i32) (param $w i32) (param $row i32) (param $out i32)
    (local $j i32)
    (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $q3 v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $b0 v128) (local $b1 v128) (local $b2 v128) (local $b3 v128)
    (loop $l16
      (local.set $q0 (v128.load (i32.add (local.get $q) (local.get $j))))
      (local.set $q1 (v128.load offset=16 (i32.add (local.get $q) (local.get $j))))
      (local.set $q2 (v128.load offset=32 (i32.add (local.get $q) (local.get $j))))
      (local.set $q3 (v128.load offset=48 (i32.add (local.get $q) (local.get $j))))
      (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $q0) (v128.load (i32.add (local.get $v) (local.get $j))))))
      (local.set $b0 (f32x4.add (local.get $b0) (f32x4.mul (local.get $q0) (v128.load (i32.add (local.get $w) (local.get $j))))))
      (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $q1) (v128.load offset=16 (i32.add (local.get $v) (local.get $j))))))
      (local.set $b1 (f32x4.add (local.get $b1) (f32x4.mul (local.get $q1) (v128.load offset=16 (i32.add (local.get $w) (local.get $j))))))
      (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $q2) (v128.load offset=32 (i32.add (local.get $v) (local.get $j))))))
      (local.set $b2 (f32x4.add (local.get $b2) (f32x4.mul (local.get $q2) (v128.load offset=32 (i32.add (local.get $w) (local.get $j))))))
      (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $q3) (v128.load offset=48 (i32.add (local.get $v) (local.get $j))))))
      (local.set $b3 (f32x4.add (local.get $b3) (f32x4.mul (local.get $q3) (v128.load offset=48 (i32.add (local.get $w) (local.get $j))))))
      (local.set $j (i32.add (local.get $j) (i32.const 64)))
      (br_if $l16 (i32.lt_u (local.get $j) (local.get $row))))
    (f32.store (local.get $out) (call $sum4f (f32x4.add
      (f32x4.add (local.get $a0) (local.get $a1))
      (f32x4.add (local.get $a2) (local.get $a3)))))
    (f32.store offset=4 (local.get $out) (call $sum4f (f32x4.add
      (f32x4.add (local.get $b0) (local.get $b1))
      (f32x4.add (local.get $b2) (local.get $b3)))))
  )

  ;; $row's sum of its accumulator's four lanes.
  (func $sum4f (param $a v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
      (f32.add (f32x4.extract_lane 2 (local.get $a)) (f32x4.extract_lane 3 (local.get $a))))
  )

  ;; The scores of chosen vectors, in place: `list` holds `n` i32 slot numbers, and each is
  ;; replaced by sum_j q[j] * v[slot * dim + j] as f32 (read before written, so one buffer serves).
  ;; Two at a time through $row2 when `dim` is a multiple of 16 (384 is), one at a time otherwise.
  (func (export "dot_at")
    (param $q i32) (param $v i32) (param $list i32) (param $n i32) (param $dim i32)
    (local $end i32)
    (local $row i32)
    (local.set $end (i32.add (local.get $list) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $row (i32.shl (local.get $dim) (i32.const 2)))
    (if (i32.and (i32.gt_s (local.get $dim) (i32.const 0)) (i32.eqz (i32.and (local.get $dim) (i32.const 15))))
      (then
        (block $pairs
          (loop $each2
            (br_if $pairs (i32.gt_u (i32.add (local.get $list) (i32.const 8)) (local.get $end)))
            (call $row2 (local.get $q)
              (i32.add (local.get $v) (i32.mul (i32.load (local.get $list)) (local.get $row)))
              (i32.add (local.get $v) (i32.mul (i32.load offset=4 (local.get $list)) (local.get $row)))
              (local.get $row) (local.get $list))
            (local.set $list (i32.add (local.get $list) (i32.const 8)))
            (br $each2)))))
    (block $done
      (br_if $done (i32.ge_u (local.get $list) (local.get $end)))
      (loop $each
        (f32.store (local.get $list) (call $row (local.get $q)
          (i32.add (local.get $v) (i32.mul (i32.load (local.get $list)) (local.get $row)))
          (local.get $dim)))
        (local.set $list (i32.add (local.get $list) (i32.const 4)))
        (br_if $each (i32.lt_u (local.get $list) (local.get $end)))))
  )

  ;; sum_j q[j] * v[j] over one i8 row of `stride` bytes (a positive multiple of 16), as i32: what
  ;; `dot_i8` gives a row, for the last one when `n` is odd; `dot_i8_at` one per listed slot.
  (func $row_i8 (param $q i32) (param $v i32) (param $stride i32) (result i32)
    (local $j i32)
    (local $a0 v128) (local $a1 v128)
    (local.set $a0 (v128.const i32x4 0 0 0 0))
    (local.set $a1 (v128.const i32x4 0 0 0 0))
    (loop $l16
      (local.set $a0 (i32x4.add (local.get $a0) (i32x4.dot_i16x8_s
        (v128.load8x8_s (i32.add (local.get $v) (local.get $j)))
        (v128.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1)))))))
      (local.set $a1 (i32x4.add (local.get $a1) (i32x4.dot_i16x8_s
        (v128.load8x8_s offset=8 (i32.add (local.get $v) (local.get $j)))
        (v128.load offset=16 (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1)))))))
      (local.set $j (i32.add (local.get $j) (i32.const 16)))
      (br_if $l16 (i32.lt_u (local.get $j) (local.get $stride))))
    (call $sum4 (i32x4.add (local.get $a0) (local.get $a1)))
  )

  (func $sum4 (param $a v128) (result i32)
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $a)) (i32x4.extract_lane 1 (local.get $a)))
      (i32.add (i32x4.extract_lane 2 (local.get $a)) (i32x4.extract_lane 3 (local.get $a))))
  )

  ;; Replaces each of the `n` i32 slot numbers at `list` by the exact i32 inner product of the i16
  ;; query with that slot's i8 codes: the vectors an HNSW walk meets, scored a batch per step.
  (func (export "dot_i8_at")
    (param $q i32) (param $v i32) (param $list i32) (param $n i32) (param $stride i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $list) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $list) (local.get $end)))
        (i32.store (local.get $list)
          (call $row_i8 (local.get $q) (i32.add (local.get $v) (i32.mul (i32.load (local.get $list)) (local.get $stride))) (local.get $stride)))
        (local.set $list (i32.add (local.get $list) (i32.const 4)))
        (br $each)))
  )

  ;; out[i] = sum_j q[j] * v[i * stride + j]  for i in [0, n), as i32; q is i16, v is i8 and
  ;; stride (bytes per vector) a positive multiple of 16.
  ;;
  ;; Rows i and i + n/2 are summed together, so the loop reads two sequential streams: the pass is
  ;; bound by how fast memory streams in, and two streams kept more reads in flight than one (100k
  ;; 384-d rows: ~2.8 → ~2.0 ms; four streams ~2.3, two adjacent rows ~2.8). The codes are read with
  ;; sign-extending loads, each 8 bytes straight to i16 lanes.
  (func (export "dot_i8")
    (param $q i32) (param $v i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $half i32)
    (local $i i32)
    (local $j i32)
    (local $qj i32)
    (local $v0 i32) (local $v1 i32)
    (local $ql v128) (local $qh v128)
    (local $a0 v128) (local $a1 v128) (local $b0 v128) (local $b1 v128)

    (local.set $half (i32.shr_u (local.get $n) (i32.const 1)))
    (block $pairs
      (br_if $pairs (i32.le_s (local.get $half) (i32.const 0)))
      (loop $rows
        (local.set $v0 (i32.add (local.get $v) (i32.mul (local.get $i) (local.get $stride))))
        (local.set $v1 (i32.add (local.get $v0) (i32.mul (local.get $half) (local.get $stride))))
        ;; Two accumulators per row, one per half of each 16-byte block, keep the adds independent.
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $b0 (v128.const i32x4 0 0 0 0))
        (local.set $b1 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (local.set $qj (local.get $q))
        (loop $l16
          (local.set $ql (v128.load (local.get $qj)))
          (local.set $qh (v128.load offset=16 (local.get $qj)))
          (local.set $a0 (i32x4.add (local.get $a0) (i32x4.dot_i16x8_s (v128.load8x8_s (i32.add (local.get $v0) (local.get $j))) (local.get $ql))))
          (local.set $a1 (i32x4.add (local.get $a1) (i32x4.dot_i16x8_s (v128.load8x8_s offset=8 (i32.add (local.get $v0) (local.get $j))) (local.get $qh))))
          (local.set $b0 (i32x4.add (local.get $b0) (i32x4.dot_i16x8_s (v128.load8x8_s (i32.add (local.get $v1) (local.get $j))) (local.get $ql))))
          (local.set $b1 (i32x4.add (local.get $b1) (i32x4.dot_i16x8_s (v128.load8x8_s offset=8 (i32.add (local.get $v1) (local.get $j))) (local.get $qh))))
          (local.set $qj (i32.add (local.get $qj) (i32.const 32)))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $l16 (i32.lt_u (local.get $j) (local.get $stride))))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (call $sum4 (i32x4.add (local.get $a0) (local.get $a1))))
        (i32.store (i32.add (local.get $out) (i32.shl (i32.add (local.get $i) (local.get $half)) (i32.const 2)))
          (call $sum4 (i32x4.add (local.get $b0) (local.get $b1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $rows (i32.lt_u (local.get $i) (local.get $half)))))
    (if (i32.and (local.get $n) (i32.const 1))
      (then
        (local.set $i (i32.sub (local.get $n) (i32.const 1)))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (call $row_i8 (local.get $q) (i32.add (local.get $v) (i32.mul (local.get $i) (local.get $stride))) (local.get $stride)))))
  )
)
