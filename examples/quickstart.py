"""Quick-start: spam filtering with AdaGrad and FTRL on the bundled SMS Spam Collection.

Trains AdaGradClassifier and FTRLClassifier on tf-idf features of 4,180 text
messages, then reports test accuracy, ROC AUC, fit time and the number of non-zero
weights, for the default AdaGrad model (dual averaging, its step and l1 chosen
in the first pass), a sparse L1 AdaGrad model, the default FTRL model (alpha and
l1 chosen the same way) and a sparse L1 FTRL model.

Data: SMS Spam Collection (Almeida, Gómez Hidalgo & Yamakami, 2011; UCI Machine
Learning Repository; CC BY 4.0 licence), bundled with sk_adaprox.
"""

import time

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import train_test_split

from sk_adaprox import AdaGradClassifier, FTRLClassifier
from sk_adaprox.datasets import load_sms_spam


def main():
    texts, is_spam = load_sms_spam(return_X_y=True)
    texts_train, texts_test, y_train, y_test = train_test_split(
        texts, is_spam, test_size=0.25, stratify=is_spam, random_state=0
    )
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    X_train = vectorizer.fit_transform(texts_train)
    X_test = vectorizer.transform(texts_test)
    print(
        f"SMS Spam Collection: {X_train.shape[0]} training / {X_test.shape[0]} test "
        f"messages, {X_train.shape[1]} tf-idf features\n"
    )
    models = {
        "AdaGrad (defaults)": AdaGradClassifier(random_state=0),
        "AdaGrad, dual averaging + L1": AdaGradClassifier(
            update="dual_averaging", eta=0.1, l1=1e-4, random_state=0
        ),
        "FTRL-Proximal (defaults)": FTRLClassifier(random_state=0),
        "FTRL-Proximal + L1": FTRLClassifier(alpha=0.1, l1=0.1, random_state=0),
    }
    print(f"{'model':<30} {'accuracy':>8} {'ROC AUC':>8} {'fit (s)':>8} {'nonzero':>8}")
    for name, model in models.items():
        started = time.perf_counter()
        model.fit(X_train, y_train)
        seconds = time.perf_counter() - started
        accuracy = accuracy_score(y_test, model.predict(X_test))
        auc = roc_auc_score(y_test, model.decision_function(X_test))
        nonzero = int((model.coef_ != 0).sum())
        print(f"{name:<30} {accuracy:>8.4f} {auc:>8.4f} {seconds:>8.3f} {nonzero:>8}")
    print(
        "\n(The first fit includes compiling or loading the Numba kernels; "
        "later fits reuse them.)"
    )


if __name__ == "__main__":
    main()
