function s = rodd_start(c, id)
%RODD_START  POST /v1/sessions/ID:start; returns the session's description.
  s = rodd_request(c, 'POST', ['/v1/sessions/' id ':start']);
end
