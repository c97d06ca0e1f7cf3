function s = rodd_pause(c, id)
%RODD_PAUSE  POST /v1/sessions/ID:pause; returns the session's description.
  s = rodd_request(c, 'POST', ['/v1/sessions/' id ':pause']);
end
