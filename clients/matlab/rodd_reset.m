function s = rodd_reset(c, id)
%RODD_RESET  POST /v1/sessions/ID:reset; returns the session's description.
  s = rodd_request(c, 'POST', ['/v1/sessions/' id ':reset']);
end
