// HAL console page script (served as /ops/assets/console.js; the CSP allows no inline script). Pages work
// without it; with it, a running job's page follows the job live, and a release upload shows its progress.
(() => {
  /** Follows a queued or running job: re-reads its page and swaps the job's part until it settles. */
  function followJob(root) {
    const url = window.location.pathname;
    let stopped = false;
    const tick = async () => {
      if (stopped) return;
      try {
        const response = await fetch(url, { headers: { accept: 'text/html' }, credentials: 'same-origin' });
        if (response.ok) {
          const page = new DOMParser().parseFromString(await response.text(), 'text/html');
          const fresh = page.querySelector('[data-job-id]');
          const current = document.querySelector('[data-job-id]');
          if (fresh && current && fresh.innerHTML !== current.innerHTML) {
            // Keep what the operator opened or typed: only swap when nothing inside has the focus.
            if (!current.contains(document.activeElement))
              current.replaceWith(document.importNode(fresh, true));
          }
          if (fresh && !fresh.hasAttribute('data-job-live')) {
            stopped = true;
            document.documentElement.dataset.jobSettled = 'true';
            return;
          }
        }
      } catch {
        // The next tick tries again (a restart, a flaky network).
      }
      window.setTimeout(tick, 1500);
    };
    window.setTimeout(tick, 1500);
    root.dataset.jobFollowing = 'true';
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
    const job = document.querySelector('[data-job-live]');
    if (job) followJob(job);
    for (const form of document.querySelectorAll('form[data-upload-progress]')) uploadWithProgress(form);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
})();
