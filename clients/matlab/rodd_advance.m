function s = rodd_advance(c, id, by)
%RODD_ADVANCE  Steps a paused (or created) session by BY simulated seconds, synchronously;
%   returns the session's description (s.t is where it stopped).
  s = rodd_request(c, 'POST', ['/v1/sessions/' id ':advance'], struct('by', by));
end
