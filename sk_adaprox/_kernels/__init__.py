"""All Numba-compiled code of sk_adaprox: one module per algorithm.

- ``common``: loss codes and derivatives, the ``WEIGHT`` slot, status codes, and the
  row bound shared by every training kernel;
- ``adagrad``, ``ftrl``, ``ons``, ``coin``: each algorithm's per-coordinate rules
  and its pass kernels;
- ``lazy``: composite mirror descent's proximal step and its lazy form for idle
  coordinates (AdaGrad's mirror descent, diagonal ONS with ``l1``);
- ``averaging``: the sums behind ``average`` for rules whose weight stays put
  between a coordinate's updates (the others keep theirs beside their rule);
- ``sparse``: scoring CSR rows with a fitted state, an index check of CSR input,
  and the passes that make a dense array CSR;
- ``targets``: the running units of a regressor's stream (``normalize_y``);
- ``shards``: data-parallel training's numbering of the features a shard's
  rows touch (``shards``).

Every kernel is compiled by :func:`._jit.jit`, whose disk cache is keyed on a hash of
all the files of this package, so editing a helper in one module can never leave a
stale compiled caller in another.

Conventions shared by every kernel:

- A CSR matrix crosses in as ``(data, indices, indptr)``, with float32 or float64
  data and int32 or int64 indices, used as the caller gave them (never written to).
- A model's whole state is one C-contiguous float64 array ``state`` of shape
  ``(n_features + 1, n_slots, K)``: ``state[j, s, k]`` is slot s (``WEIGHT``, then
  the algorithm's accumulators) of output k for feature j, and the last row
  (``j == n_features``) is the intercept, a feature that is always 1 and never
  regularised. A feature's weights and accumulators thus share cache lines: a row
  touches one block per non-zero instead of one per array. The estimator's
  ``coef_`` etc. are views of its slots.
- ``targets[i]`` is the target of row i when K == 1 (±1 for classification, real for
  regression) and the class index of row i when K > 1 (one-vs-rest: output k sees +1
  for its class and -1 otherwise).
- ``row_weights[i]`` is the row's weight s_t (sample weight times class weight).
- ``order`` lists the rows to visit; each visit is one round. Rounds are counted
  across calls: the first row of a pass is round ``t0 + 1`` (kernels whose rule
  depends on the round, AdaGrad's, take ``t0``).
- Pass kernels mutate state in place and return ``(loss_sum, rows_done, status)``:
  the sum of s_t times the pre-update loss, how many rows were applied, and
  ``STATUS_OK`` or the reason the pass stopped at row ``order[rows_done]`` without
  applying it.
- Pass kernels take ``avg_slot`` and ``a0`` (None and 0 without ``average``):
  before a coordinate's weight changes, they settle its sum of iterates (the module
  docstring of ``averaging``). Their averaging branches test ``avg_slot is not
  None``, which Numba prunes before typing when ``avg_slot`` is None: a model
  without averaging never compiles the averaging code (about a fifth of a pass
  kernel's first-call compile time).
- ``da_candidates_pass`` and ``ftrl_candidates_pass`` run several candidate
  settings of a one-output model side by side (output c of ``state`` is candidate
  c, the parameters that differ come as arrays) and write each candidate's
  ``(loss_sum, rows_done, status)`` into three arrays; a candidate whose status is
  not ``STATUS_OK`` is skipped from then on.
- Every pass kernel has the same row skeleton (score, derivatives, bound or dry run,
  update, intercept), so comparing two shows only the rule. Numba caches neither a
  kernel that takes a jitted rule as an argument nor a closure made by a factory, so
  the skeleton is written once per algorithm on purpose.
"""
