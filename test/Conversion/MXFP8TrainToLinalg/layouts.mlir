// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg --canonicalize --cse | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg | FileCheck %s --check-prefix=NOOP

// NOOP-NOT: mxfp8train.

// blocked (SPEC §4.1): one gather generic over the padded tile sequence.
// CHECK-LABEL: func.func @blocked(
// CHECK-SAME:    %[[S:[^:]*]]: tensor<100x3xf8E8M0FNU>
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<512xf8E8M0FNU>)
// CHECK:           linalg.index 0
// CHECK:           tensor.extract %[[S]][%{{.*}}, %{{.*}}] : tensor<100x3xf8E8M0FNU>
// CHECK:         return %[[R]]
func.func @blocked(%s: tensor<100x3xf8E8M0FNU>) -> tensor<512xf8E8M0FNU> {
  %0 = mxfp8train.to_blocked %s layout = blocked : tensor<100x3xf8E8M0FNU> -> tensor<512xf8E8M0FNU>
  return %0 : tensor<512xf8E8M0FNU>
}

// blocked_m_groups (SPEC §4.2 a): a zero-filled result (byte 0x00), then a
// loop over the groups that clamps each offset into [previous end, R] and
// gathers the group's to_blocked bytes into its region, which starts at the
// padded row P_g (times 12 = ceil(9/4)*4 bytes per row) and spans
// ceil(n_g/128)*128 rows. P advances by the padded group size.
// CHECK-LABEL: func.func @m_groups(
// CHECK-SAME:    %[[S:[^:]*]]: tensor<300x9xf8E8M0FNU>, %[[OFFS:[^:]*]]: tensor<3xi32>
// CHECK:         %[[ZB:.*]] = arith.constant 5.877470e-39 : f8E8M0FNU
// CHECK:         %[[Z:.*]] = linalg.fill ins(%[[ZB]] : f8E8M0FNU) outs(%{{.*}} : tensor<8208xf8E8M0FNU>)
// CHECK:         %[[L:.*]]:3 = scf.for %[[G:.*]] = %{{.*}} iter_args(%[[PREV:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[OUT:.*]] = %[[Z]])
// CHECK:           %[[RAW:.*]] = tensor.extract %[[OFFS]][%[[G]]]
// CHECK:           %[[I:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK:           %[[M:.*]] = arith.maxsi %[[I]], %[[PREV]]
// CHECK:           %[[END:.*]] = arith.minsi %[[M]], %c300
// CHECK:           %[[N:.*]] = arith.subi %[[END]], %[[PREV]]
// CHECK:           %[[NP:.*]] = arith.muli %{{.*}}, %c128
// CHECK:           %[[OFF:.*]] = arith.muli %[[P]], %c12
// CHECK:           %[[SIZE:.*]] = arith.muli %{{.*}}, %c1536
// CHECK:           %[[REGION:.*]] = tensor.extract_slice %[[OUT]][%[[OFF]]] [%[[SIZE]]] [1]
// CHECK:           %[[GATHER:.*]] = linalg.generic {{.*}} outs(%[[REGION]] : tensor<?xf8E8M0FNU>)
// CHECK:             ^bb0(%[[OLD:.*]]: f8E8M0FNU):
// CHECK:             %[[V:.*]] = tensor.extract %[[S]]
// CHECK:             arith.select %{{.*}}, %[[V]], %[[OLD]] : f8E8M0FNU
// CHECK:           %[[INS:.*]] = tensor.insert_slice %[[GATHER]] into %[[OUT]][%[[OFF]]] [%[[SIZE]]] [1]
// CHECK:           %[[PNEXT:.*]] = arith.addi %[[P]], %[[NP]]
// CHECK:           scf.yield %[[END]], %[[PNEXT]], %[[INS]]
// CHECK:         return %[[L]]#2
func.func @m_groups(%s: tensor<300x9xf8E8M0FNU>, %offs: tensor<3xi32>) -> tensor<8208xf8E8M0FNU> {
  %0 = mxfp8train.to_blocked %s offs(%offs) layout = blocked_m_groups : tensor<300x9xf8E8M0FNU>, tensor<3xi32> -> tensor<8208xf8E8M0FNU>
  return %0 : tensor<8208xf8E8M0FNU>
}

// blocked_k_groups (SPEC §4.2 b): the column groups are offs / 32, clamped
// to the 320 tokens of the 10 scale columns; each group's region starts at
// Q_g * 128 (Rp = 128) bytes.
// CHECK-LABEL: func.func @k_groups(
// CHECK:         scf.for
// CHECK:           arith.minsi %{{.*}}, %c320
// CHECK:           arith.divui %{{.*}}, %c32
// CHECK:           arith.divui %{{.*}}, %c32
// CHECK:           %[[OFF:.*]] = arith.muli %{{.*}}, %c128
// CHECK:           %[[REGION:.*]] = tensor.extract_slice %{{.*}}[%[[OFF]]] [%{{.*}}] [1]
// CHECK:           linalg.generic {{.*}} outs(%[[REGION]] : tensor<?xf8E8M0FNU>)
func.func @k_groups(%s: tensor<100x10xf8E8M0FNU>, %offs: tensor<4xi32>) -> tensor<3328xf8E8M0FNU> {
  %0 = mxfp8train.to_blocked %s offs(%offs) layout = blocked_k_groups : tensor<100x10xf8E8M0FNU>, tensor<4xi32> -> tensor<3328xf8E8M0FNU>
  return %0 : tensor<3328xf8E8M0FNU>
}

// blocked_per_expert (SPEC §4.2 c): one 2-D gather, expert by expert.
// CHECK-LABEL: func.func @per_expert(
// CHECK-SAME:    %[[S:[^:]*]]: tensor<3x100x3xf8E8M0FNU>
// CHECK-NOT:     scf.for
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<3x512xf8E8M0FNU>)
// CHECK:           %[[E:.*]] = linalg.index 0
// CHECK:           tensor.extract %[[S]][%[[E]], %{{.*}}, %{{.*}}]
func.func @per_expert(%s: tensor<3x100x3xf8E8M0FNU>) -> tensor<3x512xf8E8M0FNU> {
  %0 = mxfp8train.to_blocked %s layout = blocked_per_expert : tensor<3x100x3xf8E8M0FNU> -> tensor<3x512xf8E8M0FNU>
  return %0 : tensor<3x512xf8E8M0FNU>
}

// pad_token_groups (SPEC §7.3): zero-filled result, one row-block copy per
// group from its clamped source rows to its padded start, and padded_offs
// as i32 cumulative padded ends.
// CHECK-LABEL: func.func @pad(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<200x64xbf16>, %[[OFFS:[^:]*]]: tensor<4xi32>
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : bf16) outs(%{{.*}} : tensor<352x64xbf16>)
// CHECK:         %[[PO:.*]] = tensor.empty() : tensor<4xi32>
// CHECK:         %[[L:.*]]:4 = scf.for %[[G:.*]] = %{{.*}} iter_args(%[[PREV:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[OUT:.*]] = %[[Z]], %[[POA:.*]] = %[[PO]])
// CHECK:           %[[END:.*]] = arith.minsi %{{.*}}, %c200
// CHECK:           %[[N:.*]] = arith.subi %[[END]], %[[PREV]]
// CHECK:           %[[SRC:.*]] = tensor.extract_slice %[[X]][%[[PREV]], 0] [%[[N]], 64] [1, 1]
// CHECK:           %[[DST:.*]] = tensor.extract_slice %[[OUT]][%[[P]], 0] [%[[N]], 64] [1, 1]
// CHECK:           %[[COPY:.*]] = linalg.copy ins(%[[SRC]] : tensor<?x64xbf16>) outs(%[[DST]] : tensor<?x64xbf16>)
// CHECK:           %[[INS:.*]] = tensor.insert_slice %[[COPY]] into %[[OUT]][%[[P]], 0] [%[[N]], 64] [1, 1]
// CHECK:           %[[PEND:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:           %[[POI:.*]] = tensor.insert %[[PEND]] into %[[POA]][%[[G]]]
// CHECK:           scf.yield %[[END]], %{{.*}}, %[[INS]], %[[POI]]
// CHECK:         return %[[L]]#2, %[[L]]#3
func.func @pad(%x: tensor<200x64xbf16>, %offs: tensor<4xi32>) -> (tensor<352x64xbf16>, tensor<4xi32>) {
  %p, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<200x64xbf16>, tensor<4xi32> -> tensor<352x64xbf16>, tensor<4xi32>
  return %p, %po : tensor<352x64xbf16>, tensor<4xi32>
}

// unpad_token_groups: the inverse copies, padded groups of 128.
// CHECK-LABEL: func.func @unpad(
// CHECK-SAME:    %[[XP:[^:]*]]: tensor<768x16xf32>
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<200x16xf32>)
// CHECK:         scf.for {{.*}} iter_args(%[[PREV:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[OUT:.*]] = %[[Z]])
// CHECK:           %[[SRC:.*]] = tensor.extract_slice %[[XP]][%[[P]], 0]
// CHECK:           %[[DST:.*]] = tensor.extract_slice %[[OUT]][%[[PREV]], 0]
// CHECK:           linalg.copy ins(%[[SRC]] : tensor<?x16xf32>) outs(%[[DST]] : tensor<?x16xf32>)
// CHECK:           arith.divui %{{.*}}, %c128
func.func @unpad(%xp: tensor<768x16xf32>, %offs: tensor<4xi32>) -> tensor<200x16xf32> {
  %u = mxfp8train.unpad_token_groups %xp offs(%offs) alignment = 128 : tensor<768x16xf32>, tensor<4xi32> -> tensor<200x16xf32>
  return %u : tensor<200x16xf32>
}
