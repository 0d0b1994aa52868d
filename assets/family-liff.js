// The family page as a LIFF app: start LIFF, log in inside LINE if needed, then post the minted
// link's token with LINE's ID token; the server verifies the token with LINE.
(function () {
  var liffId = document.body.getAttribute("data-liff-id");
  var failed = function () {
    document.getElementById("liff-failed").hidden = false;
  };
  liff.init({ liffId: liffId }).then(function () {
    if (!liff.isLoggedIn()) {
      liff.login({ redirectUri: window.location.href });
      return;
    }
    var token = new URLSearchParams(window.location.search).get("t") || "";
    var idToken = liff.getIDToken();
    if (!token || !idToken) {
      failed();
      return;
    }
    var form = document.getElementById("liff-form");
    form.elements["t"].value = token;
    form.elements["id_token"].value = idToken;
    form.submit();
  }).catch(failed);
})();
