function s = rodd_session(c, id)
%RODD_SESSION  The session's description (state, t, inputs, recording...).
  s = rodd_request(c, 'GET', ['/v1/sessions/' id]);
end
