"""A first model: spam filtering with AdaGrad on the bundled SMS Spam Collection."""

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from sk_adaprox import AdaGradClassifier
from sk_adaprox.datasets import load_sms_spam

texts, is_spam = load_sms_spam(return_X_y=True)
texts_train, texts_test, y_train, y_test = train_test_split(
    texts, is_spam, test_size=0.25, stratify=is_spam, random_state=0
)
model = make_pipeline(
    TfidfVectorizer(sublinear_tf=True), AdaGradClassifier(random_state=0)
)
model.fit(texts_train, y_train)
auc = roc_auc_score(y_test, model.predict_proba(texts_test)[:, 1])
print(f"test ROC AUC {auc:.3f}")
print("chosen:", model[-1].chosen_params_)
