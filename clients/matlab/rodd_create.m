function s = rodd_create(c, varargin)
%RODD_CREATE  Creates a session; returns its description (s.id, s.state, s.t, s.inputs...).
%   s = rodd_create(c, 'spec', SPEC) with SPEC a struct or JSON text (fileread of a spec
%   file), or rodd_create(c, 'example', 'octopus-reaching'); options: 'points', N;
%   'pace', factor or 'max'; 'until', T; 'start', true; 'name', NAME; 'recording', struct
%   ('rate', 30, 'fields', {{'position'}}, 'max_bytes', N, 'when_full', 'ring'|'stop').
  parts = {};
  for k = 1:2:numel(varargin)
    key = varargin{k};
    v = varargin{k + 1};
    if strcmp(key, 'spec') && ischar(v)
      parts{end + 1} = ['"spec":' v];
    else
      parts{end + 1} = ['"' key '":' jsonencode(v)];
    end
  end
  s = rodd_request(c, 'POST', '/v1/sessions', ['{' strjoin(parts, ',') '}']);
end
