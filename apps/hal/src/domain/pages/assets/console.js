// HAL console page script (served as /ops/assets/console.js; the CSP allows no inline script). Pages work
// without it; with it, a job's page and the job list follow their jobs live, and a release upload shows its progress.
(() => {
  /**
   * Follows the page's live parts (`[data-live-part]`: one job, a job list, a server's jobs): re-reads the page
   * and swaps each part that changed, quickly while a listed job is queued or running (`data-job-live`), slowly
   * while one is paused (`data-job-paused`: it may be resumed elsewhere, and then the page follows it live again),
   * and stops once every listed job has settled.
   */
  function followLive() {
    const url = window.location.pathname + window.location.search;
    const tick = async () => {
      let delay = 1500;
      try {
        // `x-hal-live`: a re-read for the live parts only, so a page may skip what none of them shows (the server
        // page's fresh reading from its agent, which would otherwise be asked for on every tick).
        const response = await fetch(url, {
          headers: { accept: 'text/html', 'x-hal-live': '1' },
          credentials: 'same-origin',
        });
        if (response.ok) {
          const page = new DOMParser().parseFromString(await response.text(), 'text/html');
          for (const current of document.querySelectorAll('[data-live-part]')) {
            const fresh = page.querySelector(`[data-live-part="${current.dataset.livePart}"]`);
            // Keep what the operator opened or typed: only swap when nothing inside has the focus.
            if (fresh && fresh.outerHTML !== current.outerHTML && !current.contains(document.activeElement))
              current.replaceWith(document.importNode(fresh, true));
          }
          const parts = document.querySelectorAll('[data-live-part]');
          const live = [...parts].some((part) => part.hasAttribute('data-job-live'));
          const paused = [...parts].some((part) => part.hasAttribute('data-job-paused'));
          if (!live && !paused) {
            document.documentElement.dataset.jobSettled = 'true';
            return;
          }
          delete document.documentElement.dataset.jobSettled;
          if (!live) delay = 5000;
        }
      } catch {
        // The next tick tries again (a restart, a flaky network).
      }
      window.setTimeout(tick, delay);
    };
    window.setTimeout(tick, 1500);
    document.documentElement.dataset.jobFollowing = 'true';
  }

  /** Sends a release upload with XMLHttpRequest so a progress bar can show how much is sent. */
  function uploadWithProgress(form) {
    form.addEventListener('submit', (event) => {
      if (!form.checkValidity()) return;
      event.preventDefault();
      const progress = form.querySelector('progress');
      const label = form.querySelector('[data-upload-label]');
      const template = label?.dataset.template ?? '{percent}';
      const button = form.querySelector('button[type=submit]');
      if (button) button.disabled = true;
      if (progress) {
        progress.hidden = false;
        progress.value = 0;
      }
      const request = new XMLHttpRequest();
      request.open('POST', form.action);
      request.upload.addEventListener('progress', (progressEvent) => {
        if (!progressEvent.lengthComputable) return;
        const share = progressEvent.loaded / progressEvent.total;
        if (progress) progress.value = share;
        if (label) label.textContent = template.replace('{percent}', `${Math.round(share * 100)}%`);
        form.dataset.uploadSent = String(progressEvent.loaded);
      });
      request.addEventListener('load', () => {
        // A success redirects to the releases page; anything else (re-auth, an error) is a page to show.
        if (request.status < 400 && request.responseURL && !request.responseURL.endsWith(form.action)) {
          window.location.assign(request.responseURL);
          return;
        }
        document.open();
        document.write(request.responseText);
        document.close();
      });
      request.addEventListener('error', () => {
        if (button) button.disabled = false;
        if (label) label.textContent = label.dataset.failed ?? 'upload failed';
      });
      request.send(new FormData(form));
    });
  }

  function start() {
    if (document.querySelector('[data-live-part][data-job-live], [data-live-part][data-job-paused]'))
      followLive();
    for (const form of document.querySelectorAll('form[data-upload-progress]')) uploadWithProgress(form);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
})();
