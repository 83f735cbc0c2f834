"""Docstring sections every sk_adaprox estimator shares, written once.

The estimators' ``__doc__`` are f-strings that splice these in, so a parameter that
means the same everywhere is described the same everywhere.
"""


def training_parameters(tol="1e-3", tol_note=""):
    """The training parameters' section, with ``tol``'s default (and a sentence
    on why, where an estimator's differs)."""
    return f"""fit_intercept : bool, default=True
        Whether to learn an (unregularised) intercept with its own accumulator.
    max_iter : int, default=1000
        Maximum number of passes over the data in :meth:`fit`.
    tol : float or None, default={tol}
        :meth:`fit` stops when the monitored loss has not improved by ``tol`` for
        ``n_iter_no_change`` consecutive passes: the mean training loss of a pass
        (per row, and per class for one-vs-rest models; measured before each
        row's update), or with ``early_stopping`` the mean loss on the validation
        set after the pass. ``None`` disables stopping.{tol_note}
    n_iter_no_change : int, default=5
        Number of passes without improvement before stopping.
    early_stopping : bool, default=False
        If True, :meth:`fit` holds out ``validation_fraction`` of the rows
        (stratified by class for classifiers), trains on the rest, monitors the
        loss on the held-out rows after each pass, and keeps the model of the pass
        where that loss was lowest (its state, ``t_`` included; a copy of the
        state is kept while training). Unlike ``SGDClassifier``, the monitored
        quantity is the training loss function, not :meth:`score`. Use it when
        repeated passes can overfit, as with more features than rows.
        :meth:`partial_fit` ignores it.
    validation_fraction : float, default=0.1
        Fraction of the rows held out when ``early_stopping`` is True, in (0, 1).
    shuffle : bool, default=True
        Whether :meth:`fit` visits the rows in a new random order each pass.
        :meth:`partial_fit` always keeps the order it is given.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    warm_start : bool, default=False
        If True, :meth:`fit` continues from the fitted state instead of starting
        over (same number of features and classes required).
    average : bool or int, default=False
        If True, serve the mean of the iterates (the weights after each round)
        as ``coef_`` and ``intercept_``, and predict with it, as
        ``SGDClassifier``'s ASGD does; training goes on from the last iterate.
        An int n > 1 starts averaging at round n (the n-th row seen). The
        average costs O(the row's non-zeros) per row (lazy sums of each rule's
        exact trajectory between a coordinate's updates) and two more state
        slots; progressive scores and the pass losses remain those of the
        iterate. Set when training starts; once averaging has begun, ``coef_``
        cannot be assigned.
    verbose : int, default=0
        If > 0, print one line per pass: rows, mean loss, non-zero weights, seconds.
    n_jobs : int or None, default=None
        Threads for the work whose result does not depend on them, as in
        scikit-learn: None is 1 (unless a ``joblib.parallel_config`` context
        says otherwise), -1 every core. They train the outputs of a one-vs-rest
        model in blocks, run the ``"auto"`` candidates of the first pass in
        groups, and score the rows of a large ``predict`` in blocks; the model
        and its predictions are the same to the bit for every ``n_jobs``.
    shards : int, "hogwild" or None, default=None
        Data-parallel training (AdaGrad and FTRL; the other estimators refuse
        it; :doc:`/training`, "One model's rows in shards"). An int: each
        pass's rows, in their order, are split into ``shards`` consecutive
        parts that train apart, on up to ``n_jobs`` threads, each on a copy of
        the state, and are merged by the algorithm's rule. The model saw every
        row with slightly stale weights: it depends on ``shards`` and
        ``sync_rows``, not on ``n_jobs``, and is not the serial one (except
        with ``shards=1``, which is, to the bit). ``"hogwild"``: the rows are
        split among the ``n_jobs`` threads, which update one shared state at
        once without locks; no merge, close to serial training where rows
        share few features, but not deterministic (with one thread it is
        serial training). The ``"auto"`` choice's passes run serially;
        ``average`` cannot be combined with either. None trains serially.
    sync_rows : int, "auto" or None, default="auto"
        With an int ``shards``, the rows each shard trains between two merges;
        None merges once per pass (or ``partial_fit`` call). More frequent
        merges keep the model closer to serial training, and each costs
        O(shards x features the interval touched). ``"auto"`` merges as often
        as a merge costs at most about 5 % of the training between two: every
        ``400 * n_features / (non-zeros per row)`` rows, so often on dense
        data, where every shard fits every coordinate and merges once per
        pass would overshoot, and once per pass on wide sparse data."""


TRAINING_PARAMETERS = training_parameters()

CLASS_WEIGHT = """class_weight : dict, "balanced" or None, default=None
        Weights per class, multiplying the sample weight of each row of that class.
        ``"balanced"`` uses ``n_samples / (n_classes * np.bincount(y))`` (fit only)."""

CLASSIFIER_COEF = """coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights. Like every state attribute below, a view into the model's one
        state array (each feature's weights and accumulators side by side):
        writing into it changes the model; copy it to keep a snapshot. Lazily
        updated weights are brought up to date when the attribute is read, so
        read it again after training rather than hold the array. Where
        the rule derives a weight from its accumulators (dual averaging, FTRL),
        a weight written in place holds until its feature's next update;
        assigning the whole array (``model.coef_ = ...``) also sets the
        accumulators, so that the weights persist. Read-only where the weights
        are computed when read or take their ``l1``/``l2`` steps lazily (coin
        betting's normalised rule, dual averaging or mirror descent with
        ``l1``/``l2``, diagonal ONS with ``l1``), and with ``average`` (the mean
        iterates): assign the array instead (``model.coef_ = model.coef_ * 2``,
        not ``model.coef_ *= 2``). After :meth:`sparsify`, a scipy CSR matrix of
        the same shape.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.
    classes_ : ndarray of shape (n_classes,)
        The class labels."""

REGRESSOR_COEF = """coef_ : ndarray of shape (n_features,)
        Weights, in the target's units. The state attributes below are views into
        the model's one state array (each feature's weights and accumulators side
        by side), in the units the model learns in: with ``normalize_y`` those of
        the standardized target, so ``coef_`` and ``intercept_`` are then computed
        from the state when read and read-only (assigning to them changes the
        model); with ``normalize_y=False`` they are views too, unless ``average``
        makes them the mean iterates. After :meth:`sparsify`, a scipy CSR matrix
        of shape (1, n_features).
    intercept_ : ndarray of shape (1,)
        Intercept, in the target's units.
    target_offset_ : float
        With ``normalize_y``, the weighted mean of the targets ``fit`` was given
        (without ``warm_start``), and of every target a ``partial_fit`` stream
        has seen since; else 0.
    target_scale_ : float
        With ``normalize_y``, their weighted standard deviation (1 while they
        are constant); else 1."""

NORMALIZE_Y = """normalize_y : bool, default=True
        Learn the standardized target ``(y - target_offset_) / target_scale_``.
        ``fit`` measures the weighted mean and standard deviation of its
        targets and keeps them through its passes (with ``warm_start``, it keeps
        the model's). A ``partial_fit`` stream standardizes each row by the
        running mean and standard deviation of the targets up to it (continuing
        ``fit``'s), so a stream learns in the same units whether it comes one
        row at a time or in batches, and a row's progressive prediction never
        uses its own target. (``huber`` and ``epsilon_insensitive`` divide
        ``epsilon`` by the scale after each call's last row, one value per
        call: for them a call's rows share that scale.) Steps, ``tol``
        and the defaults then mean the same whatever the target's units, and
        an offset of 10**4 costs nothing; predictions, ``coef_`` and
        ``intercept_`` are in the target's units, and ``epsilon`` too. Changing
        it takes effect at the next ``fit`` without ``warm_start``."""

FIT_ATTRIBUTES = """n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when X has string column names.
    n_iter_ : int
        Number of passes run by the last call to fit (1 after partial_fit).
    validation_losses_ : ndarray of shape (`n_iter_`,) or None
        With ``early_stopping``, the validation loss after each pass of the last
        :meth:`fit`; the model kept is the one after pass
        ``argmin(validation_losses_) + 1``. None otherwise.
    t_ : int
        Number of rounds (rows) trained on so far, across all calls."""


AUTO_ATTRIBUTES = """chosen_params_ : dict
        Where parameters are ``"auto"``: the value chosen for each, by the lowest
        progressive loss of the first pass.
    candidate_params_ : list of dict
        Where parameters are ``"auto"``: every setting the first pass tried.
    candidate_losses_ : ndarray of shape (n_candidates,)
        Their mean progressive losses (per row and per output compared, each
        row's loss before the candidate learned from it); ``inf`` for a
        candidate whose training diverged.
    candidate_classes_ : ndarray of shape (4,)
        Where the candidates of a model of more than four classes were compared
        on the four classes with the most training rows (AdaGrad and FTRL; ONS
        compares on every class): those classes."""

AUTO_NOTE = """Parameters set to ``"auto"`` are chosen while a new model trains. Every
    setting in the product of their candidate values trains on the same rows
    in the same order, each from zero, and adds up its progressive loss (each
    row's loss before it learned from the row: an honest held-out estimate).
    The setting with the lowest is served (``chosen_params_``). ``fit``
    chooses at the end of its first pass and goes on with that setting alone,
    so the model equals one trained with the chosen values from the start.
    The first pass does the arithmetic of every candidate; for a binary
    classifier or a regressor (dual-averaging AdaGrad, FTRL) the candidates
    run side by side in one kernel, reading the data once, otherwise one
    after the other. With more than four classes, ``fit`` (and a stream's
    first call of 1,000 rows or more) trains the candidates on the
    one-vs-rest problems of the four classes with the most rows only
    (``candidate_classes_``; each is the problem it is in the full model),
    then the chosen setting on every class; should that setting diverge on
    another class, the choice is made again on every class. A ``partial_fit`` stream
    keeps every candidate (and their memory) until it has seen 1,000 rows,
    then keeps the best; until then progressive predictions come from the
    candidate served before the batch."""
